import { failedPrecondition, invalidArgument } from '@outpost/shared';
import type { LimitsContext } from './context.js';
import {
  checkPlanFitsAssignee,
  entityKind,
  materializeAssignment,
  validateAllowances,
  validateRegion,
  type Assignment,
  type AssignmentSpec,
  type Plan,
} from './core/index.js';
import { HierarchyReader } from './hierarchy-reader.js';
import { ownerOf } from './names.js';
import { specOf, type AssignmentDoc } from './records.js';

/**
 * A plan may serve an assignee when it is for the same service and level, and belongs to the service or to
 * an organization above the assignee (an organization offers its plans to what lies under it).
 */
export function usablePlan(
  ctx: LimitsContext,
  reader: HierarchyReader,
  planName: string,
  assignee: string,
  service: string,
): Plan {
  const plan = reader.plan(planName);
  if (!plan) throw failedPrecondition(`plan "${planName}" does not exist`);
  checkPlanFitsAssignee(plan, assignee, service);
  const owner = ownerOf(planName);
  if (entityKind(owner) === 'organization' && !reader.ancestors(assignee).includes(owner)) {
    throw failedPrecondition(`plan "${planName}" belongs to ${owner}, which is not above ${assignee}`);
  }
  return plan;
}

/** The spec of an AcceptedPlan or PlanAssignment body for `service`, checked, with every plan it uses. */
export function checkedSpec(
  ctx: LimitsContext,
  reader: HierarchyReader,
  doc: AssignmentDoc,
  assignee: string,
  service: string,
): { spec: AssignmentSpec; plans: Map<string, Plan> } {
  const spec = { ...specOf(doc), service };
  validateAllowances('extensions', spec.extensions);
  const plans = new Map<string, Plan>();
  const use = (name: string): void => {
    if (!plans.has(name)) plans.set(name, usablePlan(ctx, reader, name, assignee, service));
  };
  if (spec.defaultRegionalPlan) use(spec.defaultRegionalPlan);
  const regions = new Set<string>();
  spec.regionalPlanOverrides.forEach((override, i) => {
    validateRegion(`regionalPlanOverrides[${i}].region`, override.region);
    if (override.region === '') throw invalidArgument(`regionalPlanOverrides[${i}].region is required`);
    if (regions.has(override.region)) throw invalidArgument(`two overrides for region "${override.region}"`);
    regions.add(override.region);
    use(override.plan);
  });
  return { spec, plans };
}

/** The spec with allowances, applied regions and generations computed for the assignee's regions now. */
export function computeAssignment(
  reader: HierarchyReader,
  assignee: string,
  spec: AssignmentSpec,
  plans: ReadonlyMap<string, Plan>,
): Assignment {
  return materializeAssignment(spec, plans, reader.effectiveRegions(assignee));
}
