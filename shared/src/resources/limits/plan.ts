import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { BUSINESS_TIERS, int64, LIMITS_SERVICE, PLAN_LEVELS } from './common.js';

export const PlanSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  /** services/{service}; equals the parent service for a plan under a service */
  service: z.string().optional(),
  resourceLimits: z.array(z.object({ resource: z.string().min(1), value: int64.min(0) })).optional(),
  planLevel: z.enum(PLAN_LEVELS).optional(),
  businessTier: z.enum(BUSINESS_TIERS).optional(),
  /** incremented on every change of resourceLimits (output only) */
  generation: int64.optional(),
});
export type PlanResource = z.infer<typeof PlanSchema>;

export const PLAN_PATTERNS = [
  new NamePattern('services/{service}/plans/{plan}', { service: ID_RULES.service, plan: ID_RULES.generic }),
  new NamePattern('organizations/{organization}/plans/{plan}', {
    organization: ID_RULES.device,
    plan: ID_RULES.generic,
  }),
] as const;

export const planDefinition: ResourceDefinition<PlanResource> = {
  kind: 'Plan',
  singular: 'plan',
  plural: 'plans',
  service: LIMITS_SERVICE,
  patterns: PLAN_PATTERNS,
  idRule: ID_RULES.generic,
  schema: PlanSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'service', type: 'name' },
      { path: 'planLevel', type: 'enum', enumValues: PLAN_LEVELS },
      { path: 'businessTier', type: 'enum', enumValues: BUSINESS_TIERS },
      { path: 'generation', type: 'int' },
    ],
  },
  outputOnly: ['generation'],
  immutable: ['service', 'planLevel'],
  views: {
    BASIC: ['displayName'],
    DETAIL: ['displayName', 'service', 'resourceLimits', 'planLevel', 'businessTier', 'generation'],
  },
};
