import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { AllowanceSchema, CONCLUSIONS, LIMITS_SERVICE } from './common.js';

/** Exactly one member says what the request is for (spec 001 "RequestType members"). */
export const RequestTypeSchema = z.object({
  assign: z
    .object({ plan: z.string(), extensions: z.array(AllowanceSchema).optional(), region: z.string().optional() })
    .optional(),
  extend: z.object({ assignment: z.string(), additions: z.array(AllowanceSchema).optional() }).optional(),
  unassign: z.object({ assignment: z.string(), region: z.string().optional() }).optional(),
});

export const RequestStatusSchema = z.object({
  conclusion: z.enum(CONCLUSIONS).optional(),
  reason: z.string().optional(),
});

export const PlanAssignmentRequestSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  request: RequestTypeSchema.optional(),
  /** services/{service}; taken from the plan or the assignment when absent */
  service: z.string().optional(),
  /** the organization or service that approves: the parent of the AcceptedPlan (output only) */
  approver: z.string().optional(),
  /** output only: check it after create to learn whether the request was approved at once */
  status: RequestStatusSchema.optional(),
});
export type PlanAssignmentRequestResource = z.infer<typeof PlanAssignmentRequestSchema>;

export const PLAN_ASSIGNMENT_REQUEST_PATTERNS = [
  new NamePattern('projects/{project}/planAssignmentRequests/{plan_assignment_request}', {
    project: ID_RULES.device,
    plan_assignment_request: ID_RULES.request,
  }),
  new NamePattern('organizations/{organization}/planAssignmentRequests/{plan_assignment_request}', {
    organization: ID_RULES.device,
    plan_assignment_request: ID_RULES.request,
  }),
] as const;

export const planAssignmentRequestDefinition: ResourceDefinition<PlanAssignmentRequestResource> = {
  kind: 'PlanAssignmentRequest',
  singular: 'planAssignmentRequest',
  plural: 'planAssignmentRequests',
  service: LIMITS_SERVICE,
  patterns: PLAN_ASSIGNMENT_REQUEST_PATTERNS,
  idRule: ID_RULES.request,
  schema: PlanAssignmentRequestSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'service', type: 'name' },
      { path: 'approver', type: 'name' },
      { path: 'status.conclusion', type: 'enum', enumValues: CONCLUSIONS },
      { path: 'request.assign.plan', type: 'name' },
      { path: 'request.extend.assignment', type: 'name' },
      { path: 'request.unassign.assignment', type: 'name' },
    ],
  },
  outputOnly: ['approver', 'status'],
  views: {
    BASIC: ['service', 'approver', 'status'],
    DETAIL: ['service', 'approver', 'status', 'request'],
  },
};
