import { randomUUID } from 'node:crypto';
import { deepEqual } from '@outpost/shared';
import type { Doc } from './resource-table.js';

/**
 * True when a change touches what the user asked for: anything but metadata and system-owned paths. The
 * same answer as asking whether changedPaths(before, after) holds such a path, without listing them all.
 */
export function specChanged(before: Doc, after: Doc, outputOnly: readonly string[]): boolean {
  const skipped = (path: string): boolean =>
    path === 'metadata' ||
    path.startsWith('metadata.') ||
    outputOnly.some((o) => path === o || path.startsWith(o + '.'));
  return changedOutside(before, after, '', skipped);
}

/** Whether changedPaths(before, after) under `path` lists a path `skipped` does not cover (which covers all below it). */
function changedOutside(before: unknown, after: unknown, path: string, skipped: (path: string) => boolean): boolean {
  if (path !== '' && skipped(path)) return false;
  const beforeIsObject = isPlainObject(before);
  const afterIsObject = isPlainObject(after);
  const descend =
    (beforeIsObject || before === undefined) &&
    (afterIsObject || after === undefined) &&
    (beforeIsObject || afterIsObject);
  if (!descend) return !deepEqual(before, after);
  const a = beforeIsObject ? before : {};
  const b = afterIsObject ? after : {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (keys.size === 0) return beforeIsObject !== afterIsObject;
  for (const key of keys) {
    if (changedOutside(ownValue(a, key), ownValue(b, key), path === '' ? key : `${path}.${key}`, skipped)) return true;
  }
  return false;
}

const isPlainObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ownValue = (source: Doc, key: string): unknown => (Object.hasOwn(source, key) ? source[key] : undefined);

/** Sets the system-owned members of metadata for a write at `now` with change-log position `version`. */
export function stampMetadata(
  before: Doc | undefined,
  after: Doc,
  now: string,
  version: number,
  outputOnly: readonly string[],
): Doc {
  const previous = (before?.['metadata'] ?? {}) as Doc;
  const meta = { ...((after['metadata'] ?? {}) as Doc) };
  meta['createTime'] = previous['createTime'] ?? now;
  meta['updateTime'] = now;
  meta['uuid'] = previous['uuid'] ?? randomUUID();
  const generation = typeof previous['generation'] === 'number' ? previous['generation'] : 0;
  meta['generation'] = before === undefined ? 1 : specChanged(before, after, outputOnly) ? generation + 1 : generation;
  meta['resourceVersion'] = String(version);
  return { ...after, metadata: meta };
}
