import { computeAllowances } from './compute-allowances.js';
import type { Assignment, AssignmentSpec } from './model.js';
import type { PlansByName } from './plans.js';

/** The spec with every computed field filled in for the given regions (the entity's region list). */
export function materializeAssignment(
  spec: AssignmentSpec,
  plans: PlansByName,
  appliedRegions: readonly string[],
): Assignment {
  const regions = [...new Set(appliedRegions)].sort();
  return {
    service: spec.service,
    defaultRegionalPlan: spec.defaultRegionalPlan,
    regionalPlanOverrides: spec.regionalPlanOverrides.map((override) => ({
      ...override,
      planGeneration: plans.get(override.plan)?.generation ?? override.planGeneration,
    })),
    extensions: spec.extensions,
    allowances: computeAllowances(spec, plans, regions),
    appliedRegions: regions,
    appliedPlanSpecGeneration: spec.defaultRegionalPlan ? (plans.get(spec.defaultRegionalPlan)?.generation ?? 0) : 0,
  };
}
