export * from './common.js';
export * from './hierarchy.js';
export * from './plan.js';
export * from './plan-assignment.js';
export * from './accepted-plan.js';
export * from './plan-assignment-request.js';
export * from './limit-pool.js';
export * from './limit.js';

import { acceptedPlanDefinition } from './accepted-plan.js';
import { organizationDefinition, projectDefinition, serviceDefinition } from './hierarchy.js';
import { limitPoolDefinition } from './limit-pool.js';
import { limitDefinition } from './limit.js';
import { planAssignmentRequestDefinition } from './plan-assignment-request.js';
import { planAssignmentDefinition } from './plan-assignment.js';
import { planDefinition } from './plan.js';

/** The hierarchy resources and the six limits resources, in registration order. */
export const LIMITS_DEFINITIONS = [
  serviceDefinition,
  organizationDefinition,
  projectDefinition,
  planDefinition,
  planAssignmentDefinition,
  acceptedPlanDefinition,
  planAssignmentRequestDefinition,
  limitPoolDefinition,
  limitDefinition,
] as const;
