import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { ASSIGNMENT_OUTPUT_ONLY, assignmentFields, LIMITS_SERVICE } from './common.js';

/** The assignee's read-only copy of an accepted plan: who it belongs to is the first entity of its name. */
export const PlanAssignmentSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  ...assignmentFields,
  /** the AcceptedPlan this assignment is synchronized with (output only) */
  source: z.string().optional(),
});
export type PlanAssignmentResource = z.infer<typeof PlanAssignmentSchema>;

export const PLAN_ASSIGNMENT_PATTERNS = [
  new NamePattern('services/{service}/planAssignments/{plan_assignment}', {
    service: ID_RULES.service,
    plan_assignment: ID_RULES.generic,
  }),
  new NamePattern('projects/{project}/planAssignments/{plan_assignment}', {
    project: ID_RULES.device,
    plan_assignment: ID_RULES.generic,
  }),
  new NamePattern('organizations/{organization}/planAssignments/{plan_assignment}', {
    organization: ID_RULES.device,
    plan_assignment: ID_RULES.generic,
  }),
] as const;

export const ASSIGNMENT_FILTER_FIELDS = [
  ...META_FILTER_FIELDS,
  { path: 'service', type: 'name' },
  { path: 'defaultRegionalPlan', type: 'name' },
  { path: 'appliedRegions', type: 'stringList' },
  { path: 'appliedPlanSpecGeneration', type: 'int', indexed: false },
] as const;

const ASSIGNMENT_DETAIL = [
  'defaultRegionalPlan',
  'service',
  'regionalPlanOverrides',
  'extensions',
  'allowances',
  'appliedRegions',
  'appliedPlanSpecGeneration',
] as const;

export const planAssignmentDefinition: ResourceDefinition<PlanAssignmentResource> = {
  kind: 'PlanAssignment',
  singular: 'planAssignment',
  plural: 'planAssignments',
  service: LIMITS_SERVICE,
  patterns: PLAN_ASSIGNMENT_PATTERNS,
  idRule: ID_RULES.generic,
  schema: PlanAssignmentSchema,
  filterSchema: { fields: [...ASSIGNMENT_FILTER_FIELDS, { path: 'source', type: 'name' }] },
  outputOnly: [...ASSIGNMENT_OUTPUT_ONLY, 'source'],
  immutable: ['service'],
  views: {
    BASIC: ['defaultRegionalPlan', 'service', 'source'],
    DETAIL: [...ASSIGNMENT_DETAIL, 'source'],
  },
};

export { ASSIGNMENT_DETAIL };
