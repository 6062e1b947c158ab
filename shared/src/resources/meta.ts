import { z } from 'zod';
import type { FilterField } from '../query/index.js';

/** Meta of every resource (design.md "Meta"). System-owned members are output-only. */
export const MetaSchema = z.object({
  createTime: z.string().optional(),
  updateTime: z.string().optional(),
  uuid: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  tags: z.array(z.string()).optional(),
  generation: z.number().int().optional(),
  resourceVersion: z.string().optional(),
});
export type Meta = z.infer<typeof MetaSchema>;

export const META_OUTPUT_ONLY = [
  'metadata.createTime',
  'metadata.updateTime',
  'metadata.uuid',
  'metadata.generation',
  'metadata.resourceVersion',
] as const;

/** The filterable metadata paths every resource offers. */
export const META_FILTER_FIELDS: readonly FilterField[] = [
  { path: 'name', type: 'name' },
  { path: 'metadata.createTime', type: 'timestamp' },
  // every write moves it: no index, so a status write changes no indexed column
  { path: 'metadata.updateTime', type: 'timestamp', indexed: false },
  { path: 'metadata.labels', type: 'labels' },
  { path: 'metadata.annotations', type: 'labels' },
  { path: 'metadata.tags', type: 'stringList' },
  { path: 'metadata.generation', type: 'int' },
];
