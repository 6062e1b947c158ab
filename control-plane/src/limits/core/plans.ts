import { failedPrecondition } from '@outpost/shared';
import type { Plan } from './model.js';

export type PlansByName = ReadonlyMap<string, Plan>;

export const indexPlans = (plans: readonly Plan[]): PlansByName => new Map(plans.map((plan) => [plan.name, plan]));

export function requirePlan(plans: PlansByName, name: string): Plan {
  const plan = plans.get(name);
  if (!plan) throw failedPrecondition(`plan "${name}" does not exist`);
  return plan;
}
