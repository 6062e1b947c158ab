import { anyPathAffected, changedPaths, evaluateFilter, invalidArgument } from '@outpost/shared';
import type { Change } from '../change-log.js';
import { buildCollectionQuery } from '../collection-query.js';
import type { CollectionQuery } from '../collection-query.js';
import type { ResourceHandle } from '../resource-handle.js';
import type { Doc } from '../resource-table.js';
import { present, selectedPaths } from '../views.js';
import { ChangeQueue } from './change-queue.js';
import { decodeResumeToken, encodeResumeToken } from './resume-token.js';
import {
  chunked,
  memoised,
  DEFAULT_MAX_CHUNK_SIZE,
  DEFAULT_QUEUE_CAPACITY,
  emptyResponse,
  MAX_CHUNK_SIZE,
} from './watch-types.js';
import type {
  ChangeMessage,
  SerializedResponse,
  WatchCollectionRequest,
  WatchCollectionResponse,
  WatchOptions,
} from './watch-types.js';

const LOG_READ_BATCH = 5000;

export function chunkSizeOf(requested: number | undefined): number {
  if (requested === undefined || requested === 0) return DEFAULT_MAX_CHUNK_SIZE;
  if (!Number.isInteger(requested) || requested < 0) throw invalidArgument('maxChunkSize must be a positive integer');
  return Math.min(requested, MAX_CHUNK_SIZE);
}

/**
 * Stateless collection watch (spec 001 Events): Current/Removed changes, chunked, with resume tokens from the
 * change log. A slow watcher whose backlog overflows mid-chunk gets a soft reset and a compact replay from its last
 * resume token; a token the log no longer covers gets a hard reset and a fresh snapshot.
 */
export async function* watchStateless(
  handle: ResourceHandle,
  req: WatchCollectionRequest,
  signal: AbortSignal,
  options: WatchOptions = {},
): AsyncGenerator<WatchCollectionResponse | SerializedResponse> {
  if (req.pageSize || req.pageToken || req.orderBy) {
    throw invalidArgument('pageSize, pageToken and orderBy are not allowed in a STATELESS watch');
  }
  const query = buildCollectionQuery(handle, req.parent, req.filter, undefined);
  const paths = selectedPaths(handle.def, req.view, handle.parseMask(req.fieldMask));
  const maskPaths = paths ?? [];
  const chunkSize = chunkSizeOf(req.maxChunkSize);
  const log = handle.engineLog;
  const key = handle.def.singular;
  const current = (doc: Doc): ChangeMessage => ({ current: { [key]: present(doc, paths) } });
  const removed = (name: string): ChangeMessage => ({ removed: { name } });
  const matches = (doc: Doc | null): boolean =>
    doc !== null && query.inParent(doc['name'] as string) && evaluateFilter(query.filter, doc);

  const memo = options.memo && options.wireKey ? options.memo : undefined;
  const wireKey = options.wireKey ?? 'changes';
  const wire = ({ changes, ...rest }: WatchCollectionResponse): Record<string, unknown> => ({
    [wireKey]: changes,
    ...rest,
  });
  const shape = JSON.stringify([handle.def.plural, query.fingerprint, paths, chunkSize]);

  // subscribe before reading anything, so no change falls between the snapshot and the live stream
  const queue = new ChangeQueue(options.queueCapacity ?? DEFAULT_QUEUE_CAPACITY, signal);
  const unsubscribe = handle.subscribe((change) => queue.push(change));
  try {
    let committed: number;
    let start: { kind: 'snapshot' } | { kind: 'replay'; from: number };
    if (req.resumeToken) {
      const from = decodeResumeToken(req.resumeToken);
      start = log.covers(from) ? { kind: 'replay', from } : { kind: 'snapshot' };
      if (start.kind === 'snapshot') yield { ...emptyResponse(), isHardReset: true };
    } else if (req.startingTime) {
      const time = new Date(req.startingTime);
      if (Number.isNaN(time.getTime())) throw invalidArgument(`invalid startingTime "${req.startingTime}"`);
      start = { kind: 'replay', from: log.positionAt(handle.def.plural, time.toISOString()) };
    } else {
      start = { kind: 'snapshot' };
    }

    if (start.kind === 'snapshot') {
      const snap = snapshot(handle, query);
      committed = snap.seq;
      yield* chunked(snap.docs.map(current), chunkSize, { resumeToken: encodeResumeToken(committed) });
      yield { ...emptyResponse(), snapshotSize: snap.docs.length };
    } else {
      committed = yield* replay(handle, start.from, chunkSize, matches, current, removed);
    }

    for (;;) {
      const batch = await queue.take();
      if (batch === undefined) return;
      if (queue.resetOverflow()) {
        // the backlog was dropped: start over from the last position the client committed
        if (log.covers(committed)) {
          yield { ...emptyResponse(), isSoftReset: true };
          committed = yield* replay(handle, committed, chunkSize, matches, current, removed);
        } else {
          yield { ...emptyResponse(), isHardReset: true };
          const snap = snapshot(handle, query);
          committed = snap.seq;
          yield* chunked(snap.docs.map(current), chunkSize, { resumeToken: encodeResumeToken(committed) });
        }
        continue;
      }
      const fresh = batch.filter((c) => c.seq > committed);
      if (fresh.length === 0) continue;
      const last = fresh[fresh.length - 1]!.seq;
      const build = (): ChangeMessage[] => fresh.flatMap((c) => liveMessage(c, matches, maskPaths, current, removed));
      if (memo && fresh.length <= chunkSize) {
        // one response at most: identical for every watcher of this shape that took the same batch
        const line = memoised(memo, `${fresh[0]!.seq}-${last}|${shape}`, () => {
          const messages = build();
          return messages.length === 0
            ? ''
            : JSON.stringify(wire(chunked(messages, chunkSize, { resumeToken: encodeResumeToken(last) })[0]!));
        });
        if (line.ndjson !== '') yield line;
        committed = last;
        continue;
      }
      const messages = build();
      if (messages.length === 0) continue;
      const chunks = chunked(messages, chunkSize, { resumeToken: encodeResumeToken(last) });
      for (const chunk of chunks) {
        if (chunk !== chunks[chunks.length - 1] && queue.overflowed) break; // abandoned: soft reset follows
        yield chunk;
      }
      if (!queue.overflowed) committed = last;
    }
  } finally {
    unsubscribe();
  }
}

function liveMessage(
  change: Change,
  matches: (doc: Doc | null) => boolean,
  maskPaths: readonly string[],
  current: (doc: Doc) => ChangeMessage,
  removed: (name: string) => ChangeMessage,
): ChangeMessage[] {
  const before = matches(change.before);
  if (change.after && matches(change.after)) {
    if (before && maskPaths.length > 0 && !anyPathAffected(changedPaths(change.before, change.after), maskPaths)) {
      return [];
    }
    return [current(change.after)];
  }
  return before ? [removed(change.name)] : [];
}

/** Every matching record with the change-log position it is consistent with (reads are atomic: one writer). */
function snapshot(handle: ResourceHandle, query: CollectionQuery): { docs: Doc[]; seq: number } {
  const seq = handle.engineLog.head();
  const docs = handle.table.query({ where: query.where, keys: [{ sql: 'name', desc: false }] }).map((r) => r.doc);
  return { docs, seq };
}

/**
 * Replays the log after `from` as chunks ending in a current message; returns the position reached. The log
 * keeps no documents of puts: each changed resource is sent once, as it is now (or as removed), in the order
 * of its last change. Whether a resource that no longer matches did match before `from` is not known: it is
 * sent as removed, and a client drops it if it had it.
 */
async function* replay(
  handle: ResourceHandle,
  from: number,
  chunkSize: number,
  matches: (doc: Doc | null) => boolean,
  current: (doc: Doc) => ChangeMessage,
  removed: (name: string) => ChangeMessage,
): AsyncGenerator<WatchCollectionResponse, number> {
  // name → its message, in the order of each name's last change
  const messages = new Map<string, ChangeMessage>();
  const send = (name: string, message: ChangeMessage): void => {
    messages.delete(name);
    messages.set(name, message);
  };
  const matching = new Map<string, boolean>();
  let position = from;
  for (;;) {
    const page = handle.engineLog.read(handle.def.plural, position, LOG_READ_BATCH);
    const stored = handle.table.findMany(page.filter((c) => c.op === 'put').map((c) => c.name));
    for (const change of page) {
      position = change.seq;
      if (change.op === 'delete') {
        if (matching.get(change.name) ?? matches(change.deleted)) send(change.name, removed(change.name));
        matching.set(change.name, false);
        continue;
      }
      const doc = stored.get(change.name)?.doc;
      if (doc === undefined) continue; // deleted since: a later delete in the log says so
      const nowMatching = matches(doc);
      if (nowMatching) send(change.name, current(doc));
      else if (matching.get(change.name) ?? true) send(change.name, removed(change.name));
      matching.set(change.name, nowMatching);
    }
    if (page.length < LOG_READ_BATCH) break;
  }
  position = Math.max(position, handle.engineLog.head());
  yield* chunked([...messages.values()], chunkSize, { resumeToken: encodeResumeToken(position) });
  return position;
}
