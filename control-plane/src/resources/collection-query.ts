import { isWildcardParent, parseFilter, parseOrderBy } from '@outpost/shared';
import type { Filter } from '@outpost/shared';
import { queryFingerprint } from './page-token.js';
import type { ResourceHandle } from './resource-handle.js';
import { where as conditions } from './resource-query.js';
import type { SortKey, TableCondition } from './resource-table.js';
import { parentMatch, sortKeys } from './table-query.js';

/** A parsed collection query (parent + filter + order): what list and stateful watch share. */
export interface CollectionQuery {
  parent: string;
  filter: Filter;
  where: readonly TableCondition[];
  keys: readonly SortKey[];
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
  const where: TableCondition[] = [];
  if (pattern.parentTemplate !== '') {
    where.push(
      isWildcardParent(parent)
        ? parentMatch((p, wildcards) => handle.patternOfParent(p, wildcards), parent)
        : conditions.parent(parent),
    );
  }
  // kept even when empty: the store leaves out what every row meets, as it always did (see storage/sql/compile-query.ts)
  where.push(conditions.filter(filter));
  const keys = sortKeys({ orderBy: order.map((term) => ({ path: term.field.path, desc: term.desc })) });

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
