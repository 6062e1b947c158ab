import type { PlanAssignmentResource } from '@outpost/shared';
import type { LimitsContext } from './context.js';
import type { Assignment, TreeDiff } from './core/index.js';
import type { HeldRows } from './held-rows.js';
import { assignmentFields, limitFields, poolFields } from './records.js';
import type { AssignmentRef } from './assignment-row.js';
import type { HeldScopeRows } from './scope.js';
import { existingUsage } from './usage-count.js';

/**
 * Writes a recompute's pools and limits through the system API (inside the caller's transaction). Updates
 * go first, over the rows the scope read when it holds them.
 */
export function writeTree(ctx: LimitsContext, diff: TreeDiff, held?: Pick<HeldScopeRows, 'pools' | 'limits'>): void {
  const { pools, limits } = ctx.h;
  const update = <T extends { name: string }, F>(items: readonly T[], fields: (item: T) => F) =>
    items.map((item) => [item.name, fields(item)] as const);
  (held?.pools ?? ctx.heldRows('pools')).merge(update(diff.updatedPools, poolFields));
  (held?.limits ?? ctx.heldRows('limits')).merge(update(diff.updatedLimits, limitFields));
  for (const name of diff.deletedLimits) limits.remove(name);
  for (const name of diff.deletedPools) pools.remove(name);
  for (const pool of diff.createdPools) pools.put({ name: pool.name, ...poolFields(pool) });
  for (const limit of diff.createdLimits) {
    limits.put({ name: limit.name, ...limitFields({ ...limit, usage: existingUsage(ctx, limit) }) });
  }
}

/** Brings both documents of each assignment to its computed state. */
export function writeAssignmentDocs(
  ctx: LimitsContext,
  changed: readonly (readonly [AssignmentRef, Assignment])[],
  held?: HeldRows<PlanAssignmentResource>,
): void {
  const fields = changed.map(([ref, a]) => [ref, assignmentFields(a)] as const);
  (held ?? ctx.heldRows('planAssignments')).merge(fields.map(([ref, f]) => [ref.planAssignment, f]));
  ctx
    .heldRows('acceptedPlans')
    .merge(fields.filter(([ref]) => ref.acceptedPlan !== '').map(([ref, f]) => [ref.acceptedPlan, f]));
}
