import { compareSqlScalars, compareUtf8, toSqlScalar } from '../../src/query/index.js';
import type { OrderTerm } from '../../src/query/index.js';

/**
 * The order a list with these order_by terms gives, in memory: each key's values as the store's column holds
 * them (json_extract's), missing and null first ascending (last descending), then the name (its own term's
 * direction, else ascending), which makes the order total.
 */
export function listOrder(terms: readonly OrderTerm[]): (a: unknown, b: unknown) => number {
  const nameDesc = terms.find((term) => term.field.path === 'name')?.desc ?? false;
  const keys = terms.filter((term) => term.field.path !== 'name');
  return (a, b) => {
    for (const { field, desc } of keys) {
      const order = compareNullsFirst(toSqlScalar(valueAt(a, field.path)), toSqlScalar(valueAt(b, field.path)));
      if (order !== 0) return desc ? -order : order;
    }
    const order = compareUtf8(String(valueAt(a, 'name')), String(valueAt(b, 'name')));
    return nameDesc ? -order : order;
  };
}

function compareNullsFirst(a: number | string | null, b: number | string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareSqlScalars(a, b);
}

function valueAt(doc: unknown, path: string): unknown {
  let node = doc;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
