import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { int64, LIMITS_SERVICE } from './common.js';

/** Usage and limit of one resource type in one project and region. */
export const LimitSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  service: z.string().optional(),
  resource: z.string().optional(),
  region: z.string().optional(),
  configuredLimit: int64.optional(),
  activeLimit: int64.optional(),
  usage: int64.optional(),
  sources: z.array(z.string()).optional(),
});
export type LimitResource = z.infer<typeof LimitSchema>;

export const LIMIT_PATTERN = new NamePattern('projects/{project}/limits/{limit}', {
  project: ID_RULES.device,
  limit: ID_RULES.limit,
});

/** Only metadata is the user's: limits come and go with plan assignments, usage with the resources (spec 001 Limit rules). */
export const LIMIT_OUTPUT_ONLY = [
  'service',
  'resource',
  'region',
  'configuredLimit',
  'activeLimit',
  'usage',
  'sources',
] as const;

export const limitDefinition: ResourceDefinition<LimitResource> = {
  kind: 'Limit',
  singular: 'limit',
  plural: 'limits',
  service: LIMITS_SERVICE,
  patterns: [LIMIT_PATTERN],
  idRule: ID_RULES.limit,
  schema: LimitSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'service', type: 'name' },
      { path: 'resource', type: 'name' },
      { path: 'region', type: 'string' },
      { path: 'configuredLimit', type: 'int', indexed: false },
      { path: 'activeLimit', type: 'int', indexed: false },
      { path: 'usage', type: 'int', indexed: false },
      { path: 'sources', type: 'stringList' },
    ],
  },
  outputOnly: LIMIT_OUTPUT_ONLY,
  without: ['create'],
  views: {
    BASIC: ['resource', 'region', 'configuredLimit', 'usage'],
    DETAIL: ['service', 'resource', 'region', 'configuredLimit', 'activeLimit', 'usage'],
  },
};
