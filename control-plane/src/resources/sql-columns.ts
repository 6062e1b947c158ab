import type { FilterField } from '@outpost/shared';

/** A JSON path in SQLite's syntax with every key quoted: metadata.labels.env → $."metadata"."labels"."env" */
export function jsonPath(path: string, mapKey?: string): string {
  const segments = mapKey === undefined ? path.split('.') : [...path.split('.'), mapKey];
  return '$.' + segments.map((s) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join('.');
}

export const isMultiValued = (field: FilterField): boolean => field.type === 'labels' || field.type === 'stringList';

/** The generated column holding a scalar filterable path ('name' is the table's own column). */
export function columnOf(field: FilterField): string {
  if (field.path === 'name') return 'name';
  return 'f_' + field.path.replace(/[^A-Za-z0-9]/g, '_');
}

/** SQL string literal (for DDL, where parameters are not allowed). */
export const sqlLiteral = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The values a multi-valued field contributes to the side table: list members, or label keys and key:value pairs. */
export function multiValuesOf(field: FilterField, value: unknown): string[] {
  if (field.type === 'stringList') {
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out.push(key);
    if (typeof v === 'string') out.push(`${key}:${v}`);
  }
  return out;
}
