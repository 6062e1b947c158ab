import { anyPathAffected, changedPaths, evaluateFilter, invalidArgument } from '@outpost/shared';
import { buildCollectionQuery } from '../collection-query.js';
import { pageSizeOf, readPage } from '../list-operation.js';
import type { Page } from '../list-operation.js';
import { decodePageToken } from '../page-token.js';
import type { ResourceHandle } from '../resource-handle.js';
import type { Doc } from '../resource-table.js';
import { present, selectedPaths } from '../views.js';
import { ChangeQueue } from './change-queue.js';
import { chunked, queueBoundsOf } from './watch-types.js';
import type { ChangeMessage, WatchCollectionRequest, WatchCollectionResponse, WatchOptions } from './watch-types.js';

/**
 * Stateful collection watch: the server keeps the client's page (parent, filter, order, page token, page size)
 * and sends Added / Modified / Removed with view indexes whenever the page's content changes, plus the page
 * tokens when they change. Resets are handled here, on the server side (spec 001 Events 10).
 */
export async function* watchStateful(
  handle: ResourceHandle,
  req: WatchCollectionRequest,
  signal: AbortSignal,
  options: WatchOptions = {},
): AsyncGenerator<WatchCollectionResponse> {
  if (req.resumeToken || req.startingTime) {
    throw invalidArgument('resumeToken and startingTime are only allowed in a STATELESS watch');
  }
  const query = buildCollectionQuery(handle, req.parent, req.filter, req.orderBy);
  const pageSize = pageSizeOf(req.pageSize);
  const position = req.pageToken ? decodePageToken(req.pageToken, query.fingerprint) : undefined;
  const paths = selectedPaths(handle.def, req.view, handle.parseMask(req.fieldMask));
  const maskPaths = paths ?? [];
  const chunkSize = req.maxChunkSize ?? 0;
  if (!Number.isInteger(chunkSize) || chunkSize < 0) throw invalidArgument('maxChunkSize must be a positive integer');
  const key = handle.def.singular;
  const relevant = (doc: Doc | null): boolean =>
    doc !== null && query.inParent(doc['name'] as string) && evaluateFilter(query.filter, doc);

  const queue = new ChangeQueue(queueBoundsOf(options), signal);
  const unsubscribe = handle.subscribe((change) => queue.push(change));
  try {
    let page = readPage(handle, query, position, pageSize);
    const initial: ChangeMessage[] = page.rows.map((row, viewIndex) => ({
      added: { [key]: present(row.doc, paths), viewIndex },
    }));
    yield* chunked(initial, chunkSize, { pageTokenChange: tokensOf(page) });

    for (;;) {
      const batch = await queue.take();
      if (batch === undefined) return;
      const overflowed = queue.resetOverflow();
      const inPage = new Set(page.rows.map((r) => r.doc['name'] as string));
      const touches = overflowed || batch.some((c) => inPage.has(c.name) || relevant(c.before) || relevant(c.after));
      if (!touches) continue;
      const next = readPage(handle, query, position, pageSize);
      const messages = diffPages(page, next, key, paths, maskPaths);
      const tokensChanged = next.prevPageToken !== page.prevPageToken || next.nextPageToken !== page.nextPageToken;
      page = next;
      if (messages.length === 0 && !tokensChanged) continue;
      yield* chunked(messages, chunkSize, tokensChanged ? { pageTokenChange: tokensOf(next) } : {});
    }
  } finally {
    unsubscribe();
  }
}

const tokensOf = (page: Page): { prevPageToken: string; nextPageToken: string } => ({
  prevPageToken: page.prevPageToken,
  nextPageToken: page.nextPageToken,
});

/** Removed (old indexes), then Added and Modified (new indexes), as a client applying them in order expects. */
function diffPages(
  before: Page,
  after: Page,
  key: string,
  paths: string[] | undefined,
  maskPaths: readonly string[],
): ChangeMessage[] {
  const oldIndex = new Map(before.rows.map((r, i) => [r.doc['name'] as string, i]));
  const newIndex = new Map(after.rows.map((r, i) => [r.doc['name'] as string, i]));
  const messages: ChangeMessage[] = [];
  before.rows.forEach((row, i) => {
    const name = row.doc['name'] as string;
    if (!newIndex.has(name)) messages.push({ removed: { name, viewIndex: i } });
  });
  after.rows.forEach((row, viewIndex) => {
    const name = row.doc['name'] as string;
    const previousViewIndex = oldIndex.get(name);
    if (previousViewIndex === undefined) {
      messages.push({ added: { [key]: present(row.doc, paths), viewIndex } });
      return;
    }
    const old = before.rows[previousViewIndex]!.doc;
    const changed = changedPaths(old, row.doc);
    const contentChanged = changed.length > 0 && (maskPaths.length === 0 || anyPathAffected(changed, maskPaths));
    if (!contentChanged && previousViewIndex === viewIndex) return;
    messages.push({
      modified: {
        name,
        [key]: present(row.doc, paths),
        fieldMask: changed.join(','),
        previousViewIndex,
        viewIndex,
      },
    });
  });
  return messages;
}
