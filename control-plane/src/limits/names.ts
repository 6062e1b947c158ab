import { ID_RULES, isValidId, generateId } from '@outpost/shared';
import { entityKind } from './core/index.js';

/** 'projects/p/limits/r/x/y' → 'projects/p': the service, organization or project a name belongs to. */
export const ownerOf = (name: string): string => name.split('/').slice(0, 2).join('/');

/** 'services/devices.outpost' → 'devices.outpost' */
export const domainOf = (service: string): string => service.slice('services/'.length);

export const isEntityName = (name: string): boolean => /^(services|organizations|projects)\/[^/]+$/.test(name);

/**
 * The id shared by an AcceptedPlan and its PlanAssignment when the system makes them: the service domain for a
 * service's own assignment, else `{project|organization}-{id}.{service domain}`; unique under one assigner
 * because an entity holds one assignment per service.
 */
export function assignmentIdOf(assignee: string, service: string): string {
  const domain = domainOf(service);
  const kind = entityKind(assignee);
  const id = kind === 'service' ? domain : `${kind}-${assignee.slice(assignee.indexOf('/') + 1)}.${domain}`;
  return isValidId(ID_RULES.generic, id) ? id : generateId(ID_RULES.generic);
}

export const acceptedPlanName = (assigner: string, id: string): string => `${assigner}/acceptedPlans/${id}`;
export const planAssignmentName = (assignee: string, id: string): string => `${assignee}/planAssignments/${id}`;
export const lastSegment = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** The AcceptedPlan.assignee member for an entity. */
export function assigneeField(assignee: string): Record<string, string> {
  const kind = entityKind(assignee);
  return { [`${kind}Assignee`]: assignee };
}
