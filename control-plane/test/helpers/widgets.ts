import { z } from 'zod';
import { ID_RULES, META_FILTER_FIELDS, MetaSchema, NamePattern } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';

/** A small resource of the tests' own, exercising every kind of field the engine handles. */
export const WidgetSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().optional(),
  spec: z
    .object({
      color: z.string().optional(),
      size: z.number().int().optional(),
      enabled: z.boolean().optional(),
      owner: z.string().optional(),
      network: z.object({ dhcp: z.boolean().optional(), address: z.string().optional() }).optional(),
    })
    .optional(),
  status: z
    .object({
      state: z.enum(['IDLE', 'BUSY']).optional(),
      counter: z.number().int().optional(),
      /** a member no filter names (no column): what a status report moves */
      uptimeSeconds: z.number().int().optional(),
    })
    .optional(),
});
export type Widget = z.infer<typeof WidgetSchema>;

export const widgetDefinition: ResourceDefinition<Widget> = {
  kind: 'Widget',
  singular: 'widget',
  plural: 'widgets',
  service: 'widgets.outpost',
  patterns: [
    new NamePattern('projects/{project}/regions/{region}/widgets/{widget}', {
      project: ID_RULES.device,
      region: ID_RULES.device,
      widget: ID_RULES.device,
    }),
  ],
  idRule: ID_RULES.device,
  schema: WidgetSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'spec.color', type: 'string' },
      { path: 'spec.size', type: 'int' },
      { path: 'spec.enabled', type: 'bool' },
      { path: 'spec.owner', type: 'name' },
      { path: 'status.state', type: 'enum', enumValues: ['IDLE', 'BUSY'] },
      { path: 'status.counter', type: 'int' },
    ],
  },
  outputOnly: ['status'],
  views: { BASIC: ['displayName', 'spec.color'], DETAIL: ['displayName', 'spec'] },
};
