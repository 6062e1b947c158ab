import type { View } from '@outpost/shared';
import type { MaskInput } from '../requests.js';
import type { QueueBounds } from './change-queue.js';
import type { ResponseMemo } from './response-memo.js';

export type WatchType = 'STATEFUL' | 'STATELESS';

export interface WatchCollectionRequest {
  type?: WatchType;
  parent: string;
  pageSize?: number;
  pageToken?: string;
  orderBy?: string;
  resumeToken?: string;
  startingTime?: string;
  filter?: string;
  fieldMask?: MaskInput;
  view?: View;
  maxChunkSize?: number;
}

export interface WatchOneRequest {
  name: string;
  fieldMask?: MaskInput;
  view?: View;
}

/** A Change message as the reference describes it, keyed by the resource's singular name. */
export type ChangeMessage =
  | { added: Record<string, unknown> }
  | { modified: Record<string, unknown> }
  | { removed: { name: string; viewIndex?: number } }
  | { current: Record<string, unknown> };

export interface WatchCollectionResponse {
  changes: ChangeMessage[];
  isCurrent: boolean;
  pageTokenChange?: { prevPageToken: string; nextPageToken: string };
  resumeToken: string;
  snapshotSize: number;
  isSoftReset: boolean;
  isHardReset: boolean;
}

export interface WatchOptions {
  /** changes a watcher may have queued before it is reset (slow consumer) */
  queueCapacity?: number;
  /**
   * bytes of documents a watcher may have queued before it is reset (slow consumer); also what a stateless
   * snapshot reads per page at most
   */
  maxBufferedBytes?: number;
  /**
   * Shared by the watchers of one kind: live responses already serialised, keyed by change range and watch
   * shape, so a change fanned out to many identical watchers is built and stringified once. Needs `wireKey`.
   */
  memo?: ResponseMemo;
  /** the wire name of the changes list (`deviceChanges`) used in memoised responses */
  wireKey?: string;
}

/** A response already serialised as one NDJSON line (without the newline). */
export interface SerializedResponse {
  readonly ndjson: string;
}

export const isSerialized = (value: unknown): value is SerializedResponse =>
  typeof value === 'object' && value !== null && typeof (value as { ndjson?: unknown }).ndjson === 'string';

export const DEFAULT_MAX_CHUNK_SIZE = 100;
export const MAX_CHUNK_SIZE = 1000;
export const DEFAULT_QUEUE_CAPACITY = 10_000;
/** the default of --watch-stream-max-bytes */
export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export const queueBoundsOf = (options: WatchOptions): QueueBounds => ({
  capacity: options.queueCapacity ?? DEFAULT_QUEUE_CAPACITY,
  maxBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
});

export const emptyResponse = (): WatchCollectionResponse => ({
  changes: [],
  isCurrent: false,
  resumeToken: '',
  snapshotSize: -1,
  isSoftReset: false,
  isHardReset: false,
});

/** Splits changes into chunks of at most `size` (0 = one chunk); only the last one is current. */
export function chunked(
  changes: ChangeMessage[],
  size: number,
  last: Partial<WatchCollectionResponse>,
): WatchCollectionResponse[] {
  const step = size > 0 ? size : Math.max(changes.length, 1);
  const out: WatchCollectionResponse[] = [];
  for (let i = 0; i < Math.max(changes.length, 1); i += step) {
    out.push({ ...emptyResponse(), changes: changes.slice(i, i + step) });
  }
  Object.assign(out[out.length - 1]!, last, { isCurrent: true });
  return out;
}
