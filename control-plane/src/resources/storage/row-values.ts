import { isDocument } from '../doc-utils.js';
import type { Doc } from '../resource-table.js';
import type { SqlFragment, SqlKey } from './sql/sql-fragment.js';

/** getPath over a path split once: own keys of plain objects, anything else ends the walk. */
export function valueAt(doc: Doc, keys: readonly string[]): unknown {
  let node: unknown = doc;
  for (const key of keys) {
    if (!isDocument(node)) return undefined;
    node = Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return node;
}

/**
 * Whether the column value at `path` may differ between `before` and `after`: equal scalars give the same
 * value; objects and arrays are compared as their JSON text.
 */
export function mayDiffer(before: Doc, after: Doc, keys: readonly string[]): boolean {
  const a = valueAt(before, keys);
  const b = valueAt(after, keys);
  if (a === b) return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return true;
  return JSON.stringify(a) !== JSON.stringify(b);
}

/**
 * Rows strictly after (or before) a position in key order: a lexicographic comparison spelled out as
 * (k0 > v0) OR (k0 IS v0 AND k1 > v1) OR ... with each key's own direction; `inclusive` takes the row at the
 * position too (the last key compared with >= or <=). `same`: the store's null-safe equality operator (SQLite
 * `IS`, PostgreSQL `IS NOT DISTINCT FROM`).
 */
export function seekCondition(
  keys: readonly SqlKey[],
  values: unknown[],
  before: boolean,
  same = 'IS',
  inclusive = false,
): SqlFragment {
  const params: unknown[] = [];
  const alternatives: string[] = [];
  keys.forEach((key, i) => {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) {
      parts.push(`${keys[j]!.sql} ${same} ?`);
      params.push(values[j] ?? null);
    }
    const greater = key.desc === before;
    const orEqual = inclusive && i === keys.length - 1 ? '=' : '';
    parts.push(`${key.sql} ${greater ? '>' : '<'}${orEqual} ?`);
    params.push(values[i] ?? null);
    alternatives.push(`(${parts.join(' AND ')})`);
  });
  return { sql: `(${alternatives.join(' OR ')})`, params };
}
