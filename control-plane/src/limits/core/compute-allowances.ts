import { compareAllowances } from './allowance-key.js';
import type { Allowance, AssignmentSpec } from './model.js';
import { requirePlan, type PlansByName } from './plans.js';

/**
 * The final allowances of an assignment, one per (resource, region) for every applied region: the region's
 * plan (its override, else the default plan) plus every extension of that region or of all regions.
 * A value that extensions push below zero is clamped to 0. Extensions of regions outside `appliedRegions`
 * wait, unused, until the region appears.
 */
export function computeAllowances(
  spec: AssignmentSpec,
  plans: PlansByName,
  appliedRegions: readonly string[],
): Allowance[] {
  const allowances: Allowance[] = [];
  for (const region of new Set(appliedRegions)) {
    const values = new Map<string, number>();
    const add = (resource: string, value: number): void => {
      values.set(resource, (values.get(resource) ?? 0) + value);
    };
    const planName = planForRegion(spec, region);
    if (planName) for (const limit of requirePlan(plans, planName).resourceLimits) add(limit.resource, limit.value);
    for (const extension of spec.extensions) {
      if (extension.region === '' || extension.region === region) add(extension.resource, extension.value);
    }
    for (const [resource, value] of values) allowances.push({ resource, value: Math.max(0, value), region });
  }
  return allowances.sort(compareAllowances);
}

/** The override of the region when there is one, else the default plan ('' when neither). */
export function planForRegion(spec: AssignmentSpec, region: string): string {
  return spec.regionalPlanOverrides.find((override) => override.region === region)?.plan ?? spec.defaultRegionalPlan;
}
