import type { FilterValue } from './filter-ast.js';

/**
 * A JSON value as SQLite's json_extract() sees it: null, a number (true/false become 1/0) or text (strings, and
 * objects/arrays as their JSON). Evaluating in memory over this model keeps it in step with the SQL.
 */
export type SqlScalar = null | number | string;

export function toSqlScalar(value: unknown): SqlScalar {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value) ?? null;
}

export const filterValueToSql = (value: FilterValue): number | string =>
  typeof value === 'boolean' ? (value ? 1 : 0) : value;

/** SQLite's order for two non-null values without affinity: numbers before text, text in UTF-8 byte order. */
export function compareSqlScalars(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareUtf8(a, b);
}

/** Byte order of the UTF-8 encodings (= code point order), without encoding either string. */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrderUnit(x) - codePointOrderUnit(y);
  }
  return a.length - b.length;
}

// UTF-16 orders U+E000..U+FFFF after the surrogates that encode U+10000 and above; code point order does not.
function codePointOrderUnit(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
