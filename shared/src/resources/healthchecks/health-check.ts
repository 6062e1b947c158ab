import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import { HEALTH_CHECK_TYPES, checkProbeSpec, probeSpecShape } from '../../protocol/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';

/** Devices whose labels include every one of these select the check (an empty set selects every device). */
export const labelSelectorSchema = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
});

/**
 * A health check (spec 000 "Health check"): what the agent probes, how often, and which devices run it,
 * those its selector matches in its region plus those naming it in `spec.healthChecks`.
 */
export const healthCheckSpecSchema = z
  .object({ ...probeSpecShape, selector: labelSelectorSchema.optional() })
  .superRefine(checkProbeSpec);

export const HealthCheckSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  spec: healthCheckSpecSchema,
});

export type HealthCheckSpec = z.infer<typeof healthCheckSpecSchema>;
export type HealthCheck = z.infer<typeof HealthCheckSchema>;

/** Regional, like devices: a check applies to the devices of its own project and region. */
export const HEALTH_CHECK_PATTERN = new NamePattern('projects/{project}/regions/{region}/healthChecks/{healthCheck}', {
  project: ID_RULES.device,
  region: ID_RULES.device,
  healthCheck: ID_RULES.device,
});

export const healthCheckDefinition: ResourceDefinition<HealthCheck> = {
  kind: 'HealthCheck',
  singular: 'healthCheck',
  plural: 'healthChecks',
  service: 'devices.outpost',
  patterns: [HEALTH_CHECK_PATTERN],
  idRule: ID_RULES.device,
  schema: HealthCheckSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'spec.type', type: 'enum', enumValues: HEALTH_CHECK_TYPES },
      { path: 'spec.intervalSeconds', type: 'double' },
    ],
  },
  outputOnly: [],
  views: { BASIC: ['displayName', 'spec.type', 'spec.intervalSeconds', 'spec.selector', 'metadata.labels'] },
};
