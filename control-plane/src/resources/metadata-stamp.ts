import { randomUUID } from 'node:crypto';
import { deepEqual } from '@outpost/shared';
import type { Doc } from './resource-table.js';

/** Paths as a tree of their segments; `true` marks a path whose whole subtree is covered. */
export type PathTree = Map<string, PathTree | true>;

/** The paths a write may change without it counting as a change of the spec: metadata and `outputOnly`. */
export function systemOwnedPaths(outputOnly: readonly string[]): PathTree {
  const root: PathTree = new Map();
  for (const path of ['metadata', ...outputOnly]) {
    const segments = path.split('.');
    let node = root;
    for (const [i, segment] of segments.entries()) {
      const child = node.get(segment);
      if (child === true) break; // already covered by a shorter path
      if (i === segments.length - 1) {
        node.set(segment, true);
        break;
      }
      const next: PathTree = child ?? new Map();
      node.set(segment, next);
      node = next;
    }
  }
  return root;
}

/**
 * True when a change touches what the user asked for: anything but metadata and system-owned paths. The
 * same answer as asking whether changedPaths(before, after) holds a path `skipped` does not cover, without
 * listing them all.
 */
export function specChanged(before: Doc, after: Doc, skipped: PathTree): boolean {
  return changedOutside(before, after, skipped);
}

/** Whether changedPaths(before, after) lists a path that `skipped` (relative to here) does not cover. */
function changedOutside(before: unknown, after: unknown, skipped: PathTree | undefined): boolean {
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
    const below = skipped?.get(key);
    if (below === true) continue;
    if (changedOutside(ownValue(a, key), ownValue(b, key), below)) return true;
  }
  return false;
}

const isPlainObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ownValue = (source: Doc, key: string): unknown => (Object.hasOwn(source, key) ? source[key] : undefined);

/**
 * Whether a write that set the top-level members `changedKeys` of `before` (giving `after`) changed the spec:
 * without a walk when every one of them is wholly system-owned.
 */
export function specChangedIn(before: Doc, after: Doc, changedKeys: readonly string[], skipped: PathTree): boolean {
  return changedKeys.some((key) => skipped.get(key) !== true) && specChanged(before, after, skipped);
}

/**
 * Sets the system-owned members of metadata for a write at `now` with change-log position `version`;
 * `specChange`: whether the write changed the spec (specChanged), which moves the generation.
 */
export function stampMetadata(
  before: Doc | undefined,
  after: Doc,
  now: string,
  version: number,
  specChange: boolean,
): Doc {
  const previous = (before?.['metadata'] ?? {}) as Doc;
  const meta = { ...((after['metadata'] ?? {}) as Doc) };
  meta['createTime'] = previous['createTime'] ?? now;
  meta['updateTime'] = now;
  meta['uuid'] = previous['uuid'] ?? randomUUID();
  const generation = typeof previous['generation'] === 'number' ? previous['generation'] : 0;
  meta['generation'] = before === undefined ? 1 : specChange ? generation + 1 : generation;
  meta['resourceVersion'] = String(version);
  return { ...after, metadata: meta };
}
