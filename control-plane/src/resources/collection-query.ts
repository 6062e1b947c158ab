import { NAME_MATCH_SQL_FUNCTION, filterToSql, isWildcardParent, parseFilter, parseOrderBy } from '@outpost/shared';
import type { Filter, SqlFragment } from '@outpost/shared';
import { queryFingerprint } from './page-token.js';
import type { ResourceHandle } from './resource-handle.js';
import type { SortKey } from './resource-table.js';

/** A parsed collection query (parent + filter + order): what list and stateful watch share. */
export interface CollectionQuery {
  parent: string;
  filter: Filter;
  where: SqlFragment[];
  keys: SortKey[];
  fingerprint: string;
  /** in-memory test of the parent part, for watchers */
  inParent(name: string): boolean;
}

export function buildCollectionQuery(
  handle: ResourceHandle,
  parent: string,
  filterText: string | undefined,
  orderBy: string | undefined,
): CollectionQuery {
  const pattern = handle.patternOfParent(parent, true);
  const filter = parseFilter(filterText ?? '', handle.def.filterSchema);
  const order = parseOrderBy(orderBy, handle.def.filterSchema);
  const where: SqlFragment[] = [];
  if (pattern.parentTemplate !== '') {
    if (isWildcardParent(parent)) {
      const prefix = pattern.literalPrefix(parent);
      where.push({
        sql: `name >= ? AND name < ? AND ${NAME_MATCH_SQL_FUNCTION}(parent, ?)`,
        params: [prefix, prefix + '\uffff', parent],
      });
    } else {
      where.push({ sql: 'parent = ?', params: [parent] });
    }
  }
  const filterSql = filterToSql(filter, handle.table.sqlTarget);
  if (filterSql.sql !== '1') where.push(filterSql);

  // Every order term sorts nulls first (asc) through a null-flag key, then name breaks ties: a total order.
  const keys: SortKey[] = [];
  for (const term of order) {
    if (term.field.path === 'name') continue;
    const column = handle.table.sqlTarget.scalar(term.field);
    keys.push({ sql: `(${column} IS NOT NULL)`, desc: term.desc });
    keys.push({ sql: column, desc: term.desc });
  }
  const nameTerm = order.find((t) => t.field.path === 'name');
  keys.push({ sql: 'name', desc: nameTerm?.desc ?? false });

  const fingerprint = queryFingerprint([
    handle.def.plural,
    parent,
    filter.text,
    order.map((t) => [t.field.path, t.desc]),
  ]);
  // names in the table are valid, so a child of an exact parent is recognised by its prefix alone
  const prefix = parent === '' ? `${handle.def.plural}/` : `${parent}/${handle.def.plural}/`;
  const inParent = isWildcardParent(parent)
    ? (name: string): boolean => pattern.matchesParent(parent, name)
    : (name: string): boolean => name.startsWith(prefix);
  return { parent, filter, where, keys, fingerprint, inParent };
}
