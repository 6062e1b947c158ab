import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { int64, LIMITS_SERVICE } from './common.js';

/** Size and reservation of one resource type in one region for a service or an organization. */
export const LimitPoolSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  service: z.string().optional(),
  resource: z.string().optional(),
  region: z.string().optional(),
  configuredSize: int64.optional(),
  activeSize: int64.optional(),
  reserved: int64.optional(),
  /** the parent pool; empty for a service's own pools */
  source: z.string().optional(),
});
export type LimitPoolResource = z.infer<typeof LimitPoolSchema>;

export const LIMIT_POOL_PATTERNS = [
  new NamePattern('services/{service}/limitPools/{limit_pool}', {
    service: ID_RULES.service,
    limit_pool: ID_RULES.limit,
  }),
  new NamePattern('organizations/{organization}/limitPools/{limit_pool}', {
    organization: ID_RULES.device,
    limit_pool: ID_RULES.limit,
  }),
] as const;

/** Only metadata is the user's: pools come and go with plan assignments (spec 001 LimitPool rules). */
export const LIMIT_POOL_OUTPUT_ONLY = [
  'service',
  'resource',
  'region',
  'configuredSize',
  'activeSize',
  'reserved',
  'source',
] as const;

export const limitPoolDefinition: ResourceDefinition<LimitPoolResource> = {
  kind: 'LimitPool',
  singular: 'limitPool',
  plural: 'limitPools',
  service: LIMITS_SERVICE,
  patterns: LIMIT_POOL_PATTERNS,
  idRule: ID_RULES.limit,
  schema: LimitPoolSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'service', type: 'name' },
      { path: 'resource', type: 'name' },
      { path: 'region', type: 'string' },
      { path: 'configuredSize', type: 'int', indexed: false },
      { path: 'activeSize', type: 'int', indexed: false },
      { path: 'reserved', type: 'int', indexed: false },
      { path: 'source', type: 'name' },
    ],
  },
  outputOnly: LIMIT_POOL_OUTPUT_ONLY,
  without: ['create'],
  views: {
    BASIC: ['resource', 'region', 'configuredSize', 'reserved'],
    DETAIL: ['service', 'resource', 'region', 'configuredSize', 'activeSize', 'reserved', 'source'],
  },
};
