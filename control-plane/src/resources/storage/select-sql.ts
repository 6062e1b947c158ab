import type { TableQuery } from '../resource-table.js';
import type { SqlKey } from './sql/sql-fragment.js';

/** ` WHERE a AND b`, or nothing without conditions. */
export const whereClause = (conditions: readonly string[]): string =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';

/**
 * The SELECT of a table query on either store: id, the document's text and the sort keys as k0, k1, ..., in the
 * keys' order (reversed by `reverse`), at most `limit` rows. `conditions` are the store's own, already compiled.
 */
export function orderedSelect(
  table: string,
  q: Pick<TableQuery, 'reverse' | 'limit'> & { keys: readonly SqlKey[] },
  conditions: readonly string[],
): string {
  const flip = (desc: boolean): string => ((q.reverse ?? false) !== desc ? 'DESC' : 'ASC');
  const keyColumns = q.keys.map((k, i) => `${k.sql} AS k${i}`).join(', ');
  return (
    `SELECT id, doc, ${keyColumns} FROM ${table}` +
    whereClause(conditions) +
    ` ORDER BY ${q.keys.map((k, i) => `k${i} ${flip(k.desc)}`).join(', ')}` +
    (q.limit !== undefined ? ` LIMIT ${Math.floor(q.limit)}` : '')
  );
}
