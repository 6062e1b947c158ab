import type { PlanAssignmentResource } from '@outpost/shared';
import { countBy, type LimitsContext } from './context.js';
import type { AssignmentSpec } from './core/index.js';
import { ownerOf } from './names.js';
import { settle } from './settle.js';
import { loadScope, loadWorld } from './scope.js';

/** Above this many dependent assignments a plan change recomputes the whole tree in one pass. */
const WHOLE_TREE_ABOVE = 200;

/** The PlanAssignments that use a plan, as their default or in a regional override (in name order). */
export function assignmentsUsingPlan(ctx: LimitsContext, plan: string): PlanAssignmentResource[] {
  const names = ctx.world.assignments
    .values()
    .filter(({ assignment }) => assignment.defaultRegionalPlan === plan || usesInOverride(assignment, plan))
    .map((row) => row.ref.planAssignment)
    .sort();
  const rows = ctx.h.planAssignments.findRows(names);
  return names.map((name) => rows.get(name)?.doc).filter((doc) => doc !== undefined);
}

const usesInOverride = (assignment: AssignmentSpec, plan: string): boolean =>
  assignment.regionalPlanOverrides.some((override) => override.plan === plan);

/** After a plan's limits changed: every assignment using it, and every pool and limit below, follow. */
export function settlePlanDependents(ctx: LimitsContext, plan: string): void {
  // many use it as their default (an indexed count): the whole tree, without listing them
  if (countBy(ctx.h.planAssignments, 'defaultRegionalPlan', plan) > WHOLE_TREE_ABOVE) {
    settle(ctx, loadWorld(ctx));
    return;
  }
  const dependents = assignmentsUsingPlan(ctx, plan);
  if (dependents.length === 0) return;
  const scope =
    dependents.length > WHOLE_TREE_ABOVE
      ? loadWorld(ctx)
      : loadScope(ctx, [...new Set(dependents.map((doc) => ownerOf(doc.name)))]);
  settle(ctx, scope);
}
