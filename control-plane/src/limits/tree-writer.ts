import type { Doc } from '../resources/resource-table.js';
import type { LimitsContext } from './context.js';
import type { Assignment, TreeDiff } from './core/index.js';
import { assignmentFields, limitFields, poolFields } from './records.js';
import { existingUsage } from './usage-count.js';

/** Writes a recompute's pools and limits through the system API (inside the caller's transaction). */
export function writeTree(ctx: LimitsContext, diff: TreeDiff): void {
  const { pools, limits } = ctx.h;
  for (const name of diff.deletedLimits) limits.remove(name);
  for (const name of diff.deletedPools) pools.remove(name);
  for (const pool of diff.createdPools) pools.put({ name: pool.name, ...poolFields(pool) });
  for (const pool of diff.updatedPools) pools.patch(pool.name, (doc) => ({ ...doc, ...poolFields(pool) }));
  for (const limit of diff.createdLimits) {
    limits.put({ name: limit.name, ...limitFields({ ...limit, usage: existingUsage(ctx, limit) }) });
  }
  for (const limit of diff.updatedLimits) limits.patch(limit.name, (doc) => ({ ...doc, ...limitFields(limit) }));
}

/** Brings both documents of an assignment to its computed state. */
export function writeAssignmentDocs(
  ctx: LimitsContext,
  names: { planAssignment: string; acceptedPlan: string },
  a: Assignment,
): void {
  const fields = assignmentFields(a);
  const merge = (doc: Doc): Doc => ({ ...doc, ...fields });
  ctx.h.planAssignments.patch(names.planAssignment, merge);
  if (names.acceptedPlan) ctx.h.acceptedPlans.patch(names.acceptedPlan, merge);
}
