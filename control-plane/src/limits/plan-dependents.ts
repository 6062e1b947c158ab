import type { Doc } from '../resources/resource-table.js';
import { column, countBy, type LimitsContext } from './context.js';
import { ownerOf } from './names.js';
import { text } from './records.js';
import { settle } from './settle.js';
import { loadScope, loadWorld } from './scope.js';

/** Above this many dependent assignments a plan change recomputes the whole tree in one pass. */
const WHOLE_TREE_ABOVE = 200;

/** The PlanAssignments that use a plan, as their default or in a regional override. */
export function assignmentsUsingPlan(ctx: LimitsContext, plan: string): Doc[] {
  const handle = ctx.h.planAssignments;
  const overrides = `EXISTS (SELECT 1 FROM json_each(doc, '$.regionalPlanOverrides') o WHERE json_extract(o.value, '$.plan') = ?)`;
  return handle.table
    .query({
      where: [{ sql: `${column(handle, 'defaultRegionalPlan')} = ? OR ${overrides}`, params: [plan, plan] }],
      keys: [{ sql: 'name', desc: false }],
    })
    .map((row) => row.doc);
}

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
      : loadScope(ctx, [...new Set(dependents.map((doc) => ownerOf(text(doc['name']))))]);
  settle(ctx, scope);
}
