import { invalidArgument, parseFilter, parseOrderBy } from '@outpost/shared';
import { buildCollectionQuery } from './collection-query.js';
import type { CollectionQuery } from './collection-query.js';
import { decodePageToken, encodePageToken, queryFingerprint } from './page-token.js';
import type { PagePosition } from './page-token.js';
import type { ResourceHandle } from './resource-handle.js';
import { where, type Condition } from './resource-query.js';
import type { QueriedRow, TableQuery } from './resource-table.js';
import type { ListRequest, ListResponse } from './requests.js';
import { present, selectedPaths } from './views.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export function pageSizeOf(requested: number | undefined): number {
  if (requested === undefined || requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 0) throw invalidArgument('pageSize must be a positive integer');
  return Math.min(requested, MAX_PAGE_SIZE);
}

/** One page of a collection query at a position, with the tokens around it. */
export interface Page {
  rows: QueriedRow[];
  prevPageToken: string;
  nextPageToken: string;
}

export function readPage(
  handle: ResourceHandle,
  query: CollectionQuery,
  position: PagePosition | undefined,
  pageSize: number,
): Page {
  if (position && position.values.length !== query.keys.length) throw invalidArgument('invalid page token');
  const table = handle.table;
  const base = { where: query.where, keys: query.keys };
  // Whether a match lies beyond the page on the side of the position it was read from: one at the position or
  // past it (no match lies between the position and the page's first row), read with the page, not after it.
  const beyond = (at: PagePosition): TableQuery => ({
    ...base,
    seek: { values: at.values, before: !at.before, inclusive: true },
    reverse: !at.before,
    limit: 1,
  });

  let rows: QueriedRow[];
  let moreBefore: boolean;
  let moreAfter: boolean;
  if (position?.before) {
    const [found = [], after = []] = table.queryAll([
      { ...base, seek: position, reverse: true, limit: pageSize + 1 },
      beyond(position),
    ]);
    moreBefore = found.length > pageSize;
    rows = found.slice(0, pageSize).reverse();
    moreAfter = rows.length > 0 && after.length > 0;
  } else if (position) {
    const [found = [], before = []] = table.queryAll([
      { ...base, seek: position, limit: pageSize + 1 },
      beyond(position),
    ]);
    moreAfter = found.length > pageSize;
    rows = found.slice(0, pageSize);
    moreBefore = rows.length > 0 && before.length > 0;
  } else {
    const found = table.query({ ...base, limit: pageSize + 1 });
    moreAfter = found.length > pageSize;
    rows = found.slice(0, pageSize);
    moreBefore = false;
  }
  const token = (row: QueriedRow | undefined, before: boolean): string =>
    row ? encodePageToken(query.fingerprint, { values: row.keyValues, before }) : '';
  return {
    rows,
    prevPageToken: moreBefore ? token(rows[0], true) : '',
    nextPageToken: moreAfter ? token(rows[rows.length - 1], false) : '',
  };
}

export function listResources(handle: ResourceHandle, req: ListRequest): ListResponse {
  return respond(handle, req, buildCollectionQuery(handle, req.parent, req.filter, req.orderBy));
}

/** What narrows a custom list: conditions, and the words that tell its page tokens from other lists'. */
export interface Narrowing {
  conditions: readonly Condition[];
  key: readonly unknown[];
}

/**
 * A custom list across every parent: the generic list (filter, order_by, paging, field mask, view, paging
 * info) of the documents that also meet the narrowing's conditions.
 */
export function listNarrowed(
  handle: ResourceHandle,
  req: Omit<ListRequest, 'parent'>,
  narrowing: Narrowing,
): ListResponse {
  const filter = parseFilter(req.filter ?? '', handle.def.filterSchema);
  const order = parseOrderBy(req.orderBy, handle.def.filterSchema);
  const compiled = handle.tableQuery({
    where: [...narrowing.conditions, where.filter(filter)],
    orderBy: order.map((term) => ({ path: term.field.path, desc: term.desc })),
  });
  const fingerprint = queryFingerprint([...narrowing.key, filter.text, order.map((t) => [t.field.path, t.desc])]);
  const query = { parent: '', filter, where: compiled.where, keys: compiled.keys, fingerprint, inParent: () => true };
  return respond(handle, { ...req, parent: '' }, query);
}

function respond(handle: ResourceHandle, req: ListRequest, query: CollectionQuery): ListResponse {
  const pageSize = pageSizeOf(req.pageSize);
  const position = req.pageToken ? decodePageToken(req.pageToken, query.fingerprint) : undefined;
  const paths = selectedPaths(handle.def, req.view, handle.parseMask(req.fieldMask));
  const page = readPage(handle, query, position, pageSize);

  return {
    items: page.rows.map((r) => present(r.doc, paths)),
    prevPageToken: page.prevPageToken,
    nextPageToken: page.nextPageToken,
    ...(req.includePagingInfo ? pagingInfo(handle, query, page) : {}),
  };
}

/** Where the page starts among all matches, and how many match: two counts, so only when asked for. */
export function pagingInfo(
  handle: ResourceHandle,
  query: Pick<CollectionQuery, 'where' | 'keys'>,
  page: Page,
): { currentOffset: number; totalResultsCount: number } {
  const first = page.rows[0];
  return {
    currentOffset: first
      ? handle.table.count(query.where, { keys: query.keys, values: first.keyValues, before: true })
      : 0,
    totalResultsCount: handle.table.total(query.where),
  };
}
