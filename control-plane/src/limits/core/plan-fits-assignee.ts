import { invalidArgument } from '@outpost/shared';
import type { Plan, PlanLevel } from './model.js';
import { entityKind, type EntityKind } from './resource-names.js';

const LEVEL_OF: Readonly<Record<EntityKind, PlanLevel>> = {
  service: 'SERVICE',
  organization: 'ORGANIZATION',
  project: 'PROJECT',
};

/** A plan is for one service and one entity level (UNDEFINED: any level); anything else is INVALID_ARGUMENT. */
export function checkPlanFitsAssignee(plan: Plan, assignee: string, service: string): void {
  if (plan.service !== service) {
    throw invalidArgument(`plan "${plan.name}" is for ${plan.service}, not ${service}`);
  }
  const level = LEVEL_OF[entityKind(assignee)];
  if (plan.planLevel !== 'UNDEFINED' && plan.planLevel !== level) {
    throw invalidArgument(`plan "${plan.name}" is a ${plan.planLevel} plan; ${assignee} needs ${level}`);
  }
}
