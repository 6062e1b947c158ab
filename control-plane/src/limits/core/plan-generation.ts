import type { LimitValue, Plan } from './model.js';

/** Plan.generation: 1 on create, +1 on every update that changes resourceLimits (order does not matter). */
export function nextPlanGeneration(
  oldPlan: Pick<Plan, 'generation' | 'resourceLimits'> | undefined,
  newPlan: Pick<Plan, 'resourceLimits'>,
): number {
  if (!oldPlan) return 1;
  return sameLimits(oldPlan.resourceLimits, newPlan.resourceLimits) ? oldPlan.generation : oldPlan.generation + 1;
}

function sameLimits(a: readonly LimitValue[], b: readonly LimitValue[]): boolean {
  const canonical = (list: readonly LimitValue[]): string[] => list.map((l) => `${l.resource}=${l.value}`).sort();
  const left = canonical(a);
  const right = canonical(b);
  return left.length === right.length && left.every((entry, i) => entry === right[i]);
}
