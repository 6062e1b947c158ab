import { invalidArgument } from '@outpost/shared';
import type { Change } from '../change-log.js';
import { buildCollectionQuery } from '../collection-query.js';
import type { ResourceHandle } from '../resource-handle.js';
import { selectedPaths } from '../views.js';
import { ChangeQueue } from './change-queue.js';
import { replayFrom } from './replay.js';
import { decodeResumeToken, encodeResumeToken } from './resume-token.js';
import { pagedSnapshot, SnapshotProgress } from './snapshot.js';
import { currentMessage, filterMatches, removedMessage, verdictOf } from './stateless-shape.js';
import type { StatelessShape } from './stateless-shape.js';
import { chunked, DEFAULT_MAX_CHUNK_SIZE, emptyResponse, MAX_CHUNK_SIZE, queueBoundsOf } from './watch-types.js';
import type {
  ChangeMessage,
  SerializedResponse,
  WatchCollectionRequest,
  WatchCollectionResponse,
  WatchOptions,
} from './watch-types.js';

export function chunkSizeOf(requested: number | undefined): number {
  if (requested === undefined || requested === 0) return DEFAULT_MAX_CHUNK_SIZE;
  if (!Number.isInteger(requested) || requested < 0) throw invalidArgument('maxChunkSize must be a positive integer');
  return Math.min(requested, MAX_CHUNK_SIZE);
}

/**
 * Stateless collection watch (spec 001 Events): Current/Removed changes, chunked, with resume tokens from the
 * change log. A slow watcher whose backlog overflows gets a soft reset and a replay from its last resume token;
 * a token the log no longer covers gets a hard reset and a fresh snapshot. Replays send exactly what the live
 * stream would have (see replayFrom).
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
  const shape: StatelessShape = { query, paths, key: handle.def.singular };
  const chunkSize = chunkSizeOf(req.maxChunkSize);
  const log = handle.engineLog;
  const from = req.resumeToken ? decodeResumeToken(req.resumeToken) : undefined;
  const startingTime = req.startingTime === undefined ? undefined : new Date(req.startingTime);
  if (startingTime && Number.isNaN(startingTime.getTime())) {
    throw invalidArgument(`invalid startingTime "${req.startingTime}"`);
  }

  const memo = options.memo && options.wireKey ? options.memo : undefined;
  const wireKey = options.wireKey ?? 'changes';
  const wire = ({ changes, ...rest }: WatchCollectionResponse): Record<string, unknown> => ({
    [wireKey]: changes,
    ...rest,
  });
  const memoShape = JSON.stringify([handle.def.plural, query.fingerprint, paths, chunkSize]);

  // subscribe before reading anything, so no change falls between the snapshot and the live stream
  const queue = new ChangeQueue(queueBoundsOf(options), signal);
  const progress = new SnapshotProgress();
  const unsubscribe = handle.subscribe((change) => {
    if (query.inParent(change.name) && progress.wants(change.name)) queue.push(change);
  });
  const snapshot = () => pagedSnapshot(handle, shape, queue, progress, chunkSize);
  async function* replay(position: number): AsyncGenerator<WatchCollectionResponse, number> {
    const { messages, position: reached } = replayFrom(handle, position, shape);
    yield* chunked(messages, chunkSize, { resumeToken: encodeResumeToken(reached) });
    return reached;
  }
  try {
    let committed: number;
    if (from !== undefined) {
      if (log.covers(from)) {
        committed = yield* replay(from);
      } else {
        yield { ...emptyResponse(), isHardReset: true };
        committed = yield* snapshot();
      }
    } else if (startingTime) {
      committed = yield* replay(log.positionAt(handle.def.plural, startingTime.toISOString()));
    } else {
      committed = yield* snapshot();
    }

    for (;;) {
      let batch = await queue.take();
      if (batch === undefined) return;
      if (queue.resetOverflow()) {
        // the backlog was dropped: start over from the last position the client committed
        if (log.covers(committed)) {
          yield { ...emptyResponse(), isSoftReset: true };
          committed = yield* replay(committed);
        } else {
          yield { ...emptyResponse(), isHardReset: true };
          committed = yield* snapshot();
        }
        continue;
      }
      const fresh: (Change | undefined)[] = batch.filter((c) => c.seq > committed);
      batch = undefined; // fresh alone holds the changes: liveChunks lets go of each once its chunk is built
      if (fresh.length === 0) continue;
      const last = fresh[fresh.length - 1]!.seq;
      const build = (): ChangeMessage[] => fresh.flatMap((c) => (c ? liveMessage(shape, c) : []));
      if (memo && fresh.length <= chunkSize) {
        // one response at most: identical for every watcher of this shape that took the same batch
        const line = memo.get(`${fresh[0]!.seq}-${last}|${memoShape}`, () => {
          const messages = build();
          return messages.length === 0
            ? ''
            : JSON.stringify(wire(chunked(messages, chunkSize, { resumeToken: encodeResumeToken(last) })[0]!));
        });
        if (line.ndjson !== '') yield line;
        committed = last;
        continue;
      }
      // chunk by chunk: the messages of a backlog of thousands of changes are never all held at once
      let abandoned = false;
      let pending: ChangeMessage[] | undefined;
      for (const chunk of liveChunks(shape, fresh, chunkSize)) {
        if (pending) {
          if (queue.overflowed) {
            abandoned = true; // a soft reset follows
            break;
          }
          yield { ...emptyResponse(), changes: pending };
        }
        pending = chunk;
      }
      if (!abandoned && pending) {
        yield { ...emptyResponse(), changes: pending, resumeToken: encodeResumeToken(last), isCurrent: true };
      }
      if (!queue.overflowed) committed = last;
    }
  } finally {
    unsubscribe();
  }
}

/**
 * The messages of `changes` in chunks of `size` (0: one chunk), built one chunk at a time; a change whose chunk
 * is built is dropped from `changes`, so what was sent can be collected while the rest waits for the client.
 */
export function* liveChunks(
  shape: StatelessShape,
  changes: (Change | undefined)[],
  size: number,
): Generator<ChangeMessage[]> {
  const chunk: ChangeMessage[] = [];
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i];
    changes[i] = undefined;
    if (change) chunk.push(...liveMessage(shape, change));
    if (size > 0 && chunk.length >= size) {
      yield chunk.splice(0, size);
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** The message a live watcher sends for one change of a resource in its parent, if any. */
function liveMessage(shape: StatelessShape, change: Change): ChangeMessage[] {
  const verdict = verdictOf(
    shape,
    filterMatches(shape, change.before),
    filterMatches(shape, change.after),
    change.changed,
  );
  if (verdict === 'current' && change.after) return [currentMessage(shape, change.after)];
  return verdict === 'removed' ? [removedMessage(change.name)] : [];
}
