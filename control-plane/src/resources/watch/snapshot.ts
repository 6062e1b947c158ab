import { compareUtf8 } from '@outpost/shared';
import type { Change } from '../change-log.js';
import { parseDocument } from '../doc-utils.js';
import type { ResourceHandle } from '../resource-handle.js';
import type { Doc } from '../resource-table.js';
import type { ChangeQueue } from './change-queue.js';
import { encodeResumeToken } from './resume-token.js';
import { currentMessage, filterMatches, removedMessage, verdictOf } from './stateless-shape.js';
import type { StatelessShape } from './stateless-shape.js';
import { chunked, emptyResponse } from './watch-types.js';
import type { ChangeMessage, WatchCollectionResponse } from './watch-types.js';

/** A snapshot page stops after the resource that takes it past this many bytes of stored JSON. */
const PAGE_BYTES = 1024 * 1024;

/**
 * Where a snapshot read page by page (in name order) has got to: a change of a resource not read yet needs no
 * sending, the page that reads it will show it. The watcher's listener asks `wants` before queueing.
 */
export class SnapshotProgress {
  /** the last name read; '' before the first page; undefined when no snapshot is being read */
  private cursor: string | undefined;

  wants(name: string): boolean {
    return this.cursor === undefined || compareUtf8(name, this.cursor) <= 0;
  }

  /** @internal for the snapshot reader */
  set(cursor: string | undefined): void {
    this.cursor = cursor;
  }

  get last(): string | undefined {
    return this.cursor;
  }
}

/**
 * A stateless watcher's snapshot, read and sent one page at a time so that a watcher whose client does not read
 * holds one page, not the collection. Pages are read at different moments: the changes of resources already
 * sent, queued meanwhile, are folded into the last chunk, so that at `isCurrent` the client holds the collection
 * as of the resume token sent with it. When the queue overflows meanwhile the client is told to drop what it got
 * (soft reset) and the snapshot starts over. Returns the change-log position of the snapshot.
 */
export async function* pagedSnapshot(
  handle: ResourceHandle,
  shape: StatelessShape,
  queue: ChangeQueue,
  progress: SnapshotProgress,
  chunkSize: number,
): AsyncGenerator<WatchCollectionResponse, number> {
  for (;;) {
    progress.set('');
    queue.resetOverflow(); // what was queued is superseded by the pages
    let held = 0;
    let page = readPage(handle, shape, '', chunkSize);
    while (page.more) {
      progress.set(page.last);
      held += page.docs.length;
      yield { ...emptyResponse(), changes: page.docs.map((doc) => currentMessage(shape, doc)) };
      if (queue.overflowed) break;
      page = readPage(handle, shape, page.last, chunkSize);
    }
    if (queue.overflowed) {
      yield { ...emptyResponse(), isSoftReset: true };
      continue;
    }
    // the last page and the fold happen in one turn: no change comes between them
    held += page.docs.length;
    progress.set(undefined);
    const position = handle.engineLog.head();
    const fold = foldChanges(shape, queue.takeNow());
    const messages = [...page.docs.map((doc) => currentMessage(shape, doc)), ...fold.messages];
    yield* chunked(messages, chunkSize, { resumeToken: encodeResumeToken(position) });
    yield { ...emptyResponse(), snapshotSize: held + fold.heldDelta };
    return position;
  }
}

interface Page {
  docs: Doc[];
  /** the name of the last resource read */
  last: string;
  /** whether resources after `last` may match */
  more: boolean;
}

function readPage(handle: ResourceHandle, shape: StatelessShape, after: string, limit: number): Page {
  const texts: string[] = [];
  let bytes = 0;
  let last = after;
  let rows = 0;
  handle.table.eachStored(
    {
      where: shape.query.where,
      keys: [{ key: 'name', desc: false }],
      seek: after === '' ? undefined : { values: [after], before: false },
      limit,
    },
    (row) => {
      rows++;
      if (bytes >= PAGE_BYTES) return; // read by the next page
      texts.push(row.text);
      bytes += row.text.length;
      last = row.keyValues[0] as string;
    },
  );
  return { docs: texts.map(parseDocument), last, more: rows === limit || texts.length < rows };
}

/**
 * The changes of resources already sent, as the snapshot's last messages: for each resource, the last message
 * a live watcher would have sent for them (the resource as after its last change), and how many resources
 * the client holds more (or fewer) for them.
 */
function foldChanges(
  shape: StatelessShape,
  changes: readonly Change[],
): { messages: ChangeMessage[]; heldDelta: number } {
  const byName = new Map<
    string,
    { heldBefore: boolean; verdict: 'current' | 'removed' | undefined; doc: Doc | null }
  >();
  for (const change of changes) {
    if (!shape.query.inParent(change.name)) continue;
    let entry = byName.get(change.name);
    if (!entry) {
      entry = { heldBefore: filterMatches(shape, change.before), verdict: undefined, doc: null };
    }
    const verdict = verdictOf(
      shape,
      filterMatches(shape, change.before),
      filterMatches(shape, change.after),
      change.changed,
    );
    if (verdict !== undefined) {
      byName.delete(change.name); // in the order of the last message
      entry.verdict = verdict;
      entry.doc = change.after;
    }
    byName.set(change.name, entry);
  }
  const messages: ChangeMessage[] = [];
  let heldDelta = 0;
  for (const [name, entry] of byName) {
    if (entry.verdict === 'current' && entry.doc !== null) {
      messages.push(currentMessage(shape, entry.doc));
      if (!entry.heldBefore) heldDelta++;
    } else if (entry.verdict === 'removed') {
      messages.push(removedMessage(name));
      if (entry.heldBefore) heldDelta--;
    }
  }
  return { messages, heldDelta };
}
