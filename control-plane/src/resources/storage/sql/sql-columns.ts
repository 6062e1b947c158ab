import type { FilterField } from '@outpost/shared';
import { isDocument } from '../../doc-utils.js';

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

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The value json_extract(doc, path) gives for `value`, the member of the stored document at path: bound from
 * JS, so that SQLite does not parse the document again for each column. Integers are bound as BigInt to be
 * stored as INTEGER, as json_extract stores them.
 */
export function sqlValueOf(value: unknown): string | number | bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    if (Number.isSafeInteger(value)) return BigInt(value);
    if (!Number.isInteger(value) || Math.abs(value) >= 1e21) return value;
    // SQLite reads the JSON text of a larger integer (its shortest digits) as INTEGER when it fits in int64
    const digits = BigInt(String(value));
    return digits >= INT64_MIN && digits <= INT64_MAX ? digits : value;
  }
  return JSON.stringify(value);
}

/** SQL string literal (for DDL, where parameters are not allowed). */
export const sqlLiteral = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The values a multi-valued field contributes to the side table: list members, or label keys and key:value pairs. */
export function multiValuesOf(field: FilterField, value: unknown): string[] {
  if (field.type === 'stringList') {
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }
  if (!isDocument(value)) return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    out.push(key);
    if (typeof v === 'string') out.push(`${key}:${v}`);
  }
  return out;
}
