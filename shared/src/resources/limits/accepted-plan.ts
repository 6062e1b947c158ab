import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { MetaSchema } from '../meta.js';
import { ASSIGNMENT_OUTPUT_ONLY, assignmentFields, LIMITS_SERVICE } from './common.js';
import { ASSIGNMENT_DETAIL, ASSIGNMENT_FILTER_FIELDS } from './plan-assignment.js';

/** Exactly one member names who the plan is accepted for. */
export const AssigneeSchema = z.object({
  projectAssignee: z.string().optional(),
  organizationAssignee: z.string().optional(),
  serviceAssignee: z.string().optional(),
});

/** The assigner's record of a plan, in 1-to-1 relation with the assignee's PlanAssignment. */
export const AcceptedPlanSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  ...assignmentFields,
  assignee: AssigneeSchema.optional(),
});
export type AcceptedPlanResource = z.infer<typeof AcceptedPlanSchema>;

export const ACCEPTED_PLAN_PATTERNS = [
  new NamePattern('services/{service}/acceptedPlans/{accepted_plan}', {
    service: ID_RULES.service,
    accepted_plan: ID_RULES.generic,
  }),
  new NamePattern('organizations/{organization}/acceptedPlans/{accepted_plan}', {
    organization: ID_RULES.device,
    accepted_plan: ID_RULES.generic,
  }),
] as const;

export const acceptedPlanDefinition: ResourceDefinition<AcceptedPlanResource> = {
  kind: 'AcceptedPlan',
  singular: 'acceptedPlan',
  plural: 'acceptedPlans',
  service: LIMITS_SERVICE,
  patterns: ACCEPTED_PLAN_PATTERNS,
  idRule: ID_RULES.generic,
  schema: AcceptedPlanSchema,
  filterSchema: {
    fields: [
      ...ASSIGNMENT_FILTER_FIELDS,
      { path: 'assignee.projectAssignee', type: 'name' },
      { path: 'assignee.organizationAssignee', type: 'name' },
      { path: 'assignee.serviceAssignee', type: 'name' },
    ],
  },
  outputOnly: [...ASSIGNMENT_OUTPUT_ONLY],
  immutable: ['service', 'assignee'],
  views: {
    BASIC: ['defaultRegionalPlan', 'service', 'assignee'],
    DETAIL: [...ASSIGNMENT_DETAIL, 'assignee'],
  },
};
