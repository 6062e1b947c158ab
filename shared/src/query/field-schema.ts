export type FieldType =
  | 'string'
  | 'int'
  | 'double'
  | 'bool'
  /** RFC3339 string in JSON; stored documents use Date.toISOString() */
  | 'timestamp'
  /** string in JSON; a filter accepts the quoted name or its number (index in enumValues) */
  | 'enum'
  /** resource name / reference; a filter value may contain '-' wildcard segments */
  | 'name'
  /** map<string,string>: CONTAINS "key" or "key:value"; `<path>.<key>` addresses one value (type string) */
  | 'labels'
  /** string[]: CONTAINS "x" tests membership */
  | 'stringList'
  /** non-leaf: only compared with null */
  | 'object';

export interface FilterField {
  /** dotted lowerCamel, e.g. 'status.deviceInfo.osVersion' */
  path: string;
  type: FieldType;
  enumValues?: readonly string[];
  /** other words a filter accepts for an enum value, e.g. the spec's `Online` for `CONNECTED` (alias → value) */
  enumAliases?: Readonly<Record<string, string>>;
  /**
   * false: the store keeps no index on it (filters on it still work, over the rows the other conditions
   * leave). For values that one write moves on thousands of documents, whose every index entry that write
   * would rewrite.
   */
  indexed?: false;
}

export interface FilterSchema {
  fields: readonly FilterField[];
}

/** A field path of a filter or order_by, resolved against a schema. */
export interface ResolvedField {
  /** lowerCamel path; for a map key, the labels field's path plus '.' plus the key */
  path: string;
  /** the field's type, or 'string' for one key of a labels map */
  type: FieldType;
  field: FilterField;
  /** set when the path addresses one key of a labels map */
  mapKey?: string;
}

const NON_LEAF_TYPES: ReadonlySet<FieldType> = new Set(['object', 'labels', 'stringList']);

/** Leaf types hold one scalar: they can be compared, ordered (except enum in filters) and sorted. */
export const isLeafType = (type: FieldType): boolean => !NON_LEAF_TYPES.has(type);

const camelSegment = (segment: string): string =>
  segment.replace(/(?<=[^_-])[_-]+([A-Za-z0-9])/g, (_match, next: string) => next.toUpperCase());

/** 'status.device_info.os_version' (or 'status.device-info.os-version') -> 'status.deviceInfo.osVersion' */
export function toCamelPath(path: string): string {
  return path.split('.').map(camelSegment).join('.');
}

/**
 * Finds a field by snake_case, kebab-case or lowerCamel path. A path below a 'labels' field addresses one map
 * key: the key is kept as written (not camel-cased) and may itself contain dots.
 */
export function resolveField(schema: FilterSchema, path: string): ResolvedField | undefined {
  const segments = path.split('.');
  if (segments.some((s) => s === '')) return undefined;
  const camel = segments.map(camelSegment);
  const exact = schema.fields.find((f) => f.path === camel.join('.'));
  if (exact) return { path: exact.path, type: exact.type, field: exact };
  for (let i = segments.length - 1; i >= 1; i--) {
    const prefix = camel.slice(0, i).join('.');
    const labels = schema.fields.find((f) => f.path === prefix && f.type === 'labels');
    if (labels) {
      const mapKey = segments.slice(i).join('.');
      return { path: `${labels.path}.${mapKey}`, type: 'string', field: labels, mapKey };
    }
  }
  return undefined;
}
