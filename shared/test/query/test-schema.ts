import type { FilterSchema } from '../../src/query/index.js';

export const STATES = ['STATE_UNSPECIFIED', 'CONNECTED', 'DISCONNECTED'] as const;

/** A small schema with one field of every type, used by the query tests. */
export const testSchema: FilterSchema = {
  fields: [
    { path: 'name', type: 'name' },
    { path: 'displayName', type: 'string' },
    { path: 'spec.count', type: 'int' },
    { path: 'spec.ratio', type: 'double' },
    { path: 'spec.enabled', type: 'bool' },
    { path: 'spec.owner', type: 'name' },
    { path: 'metadata.createTime', type: 'timestamp' },
    { path: 'metadata.labels', type: 'labels' },
    { path: 'metadata.tags', type: 'stringList' },
    { path: 'status', type: 'object' },
    { path: 'status.state', type: 'enum', enumValues: STATES },
    { path: 'status.deviceInfo.osVersion', type: 'string' },
  ],
};
