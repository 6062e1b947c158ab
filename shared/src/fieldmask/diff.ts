import type { PathTree } from './path-tree.js';
import { getOwn, isPlainObject } from './paths.js';
import type { PlainObject } from './paths.js';

/**
 * The paths whose values differ between two documents, sorted. Objects are compared member by
 * member down to leaves; arrays and other values are compared whole. Where one side has an
 * object and the other has nothing, the object's leaves are listed (an empty object lists itself).
 */
export function changedPaths(before: unknown, after: unknown): string[] {
  const changed: string[] = [];
  walkChanges(before, after, '', undefined, (path) => {
    changed.push(path);
    return false;
  });
  return sortFew(changed);
}

/**
 * Sorts a short list of strings in place, in the order Array.prototype.sort gives them (UTF-16 code units):
 * that sort allocates over a kilobyte of state per call, and changed paths are listed for every update.
 */
export function sortFew(list: string[]): string[] {
  if (list.length > 16) return list.sort();
  for (let i = 1; i < list.length; i++) {
    const item = list[i]!;
    let j = i - 1;
    for (; j >= 0 && list[j]! > item; j--) list[j + 1] = list[j]!;
    list[j + 1] = item;
  }
  return list;
}

/** Whether changedPaths(before, after) would list a path that `skipped` does not cover, without listing them. */
export function changedOutside(before: unknown, after: unknown, skipped: PathTree): boolean {
  return walkChanges(before, after, '', skipped, () => true);
}

/**
 * Visits the paths changedPaths lists, but those under `skipped` (relative to `path`), until `found` returns
 * true; returns whether it did.
 */
function walkChanges(
  before: unknown,
  after: unknown,
  path: string,
  skipped: PathTree | undefined,
  found: (path: string) => boolean,
): boolean {
  const beforeIsObject = isPlainObject(before);
  const afterIsObject = isPlainObject(after);
  const descend =
    (beforeIsObject || before === undefined) &&
    (afterIsObject || after === undefined) &&
    (beforeIsObject || afterIsObject);
  if (!descend) return !deepEqual(before, after) && found(path);
  const a = beforeIsObject ? before : NO_MEMBERS;
  const b = afterIsObject ? after : NO_MEMBERS;
  // this runs on every write (a status report's, thousands a second), so it allocates nothing but the paths
  // of members that differ: no closure per level, no key arrays (for-in over own keys lists what Object.keys
  // does, in its order), and a member that is the same value on both sides (writes share what they keep) is
  // passed over without its path
  let members = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    members++;
    if (memberChanged(a, b, key, path, skipped, found)) return true;
  }
  for (const key in b) {
    if (!Object.hasOwn(b, key) || Object.hasOwn(a, key)) continue;
    members++;
    if (memberChanged(a, b, key, path, skipped, found)) return true;
  }
  return members === 0 && beforeIsObject !== afterIsObject && found(path);
}

/** walkChanges over one member of `a` or `b` (the objects at `path`). */
function memberChanged(
  a: PlainObject,
  b: PlainObject,
  key: string,
  path: string,
  skipped: PathTree | undefined,
  found: (path: string) => boolean,
): boolean {
  const below = skipped?.get(key);
  if (below === true) return false;
  const from = getOwn(a, key);
  const to = getOwn(b, key);
  if (Object.is(from, to)) return false;
  return walkChanges(from, to, path === '' ? key : `${path}.${key}`, below, found);
}

const NO_MEMBERS: Readonly<Record<string, unknown>> = Object.freeze({});

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  // as walkChanges: own keys by for-in, without key arrays or a closure (this runs on every write)
  let members = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    members++;
    if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key])) return false;
  }
  for (const key in b) if (Object.hasOwn(b, key) && --members < 0) return false;
  return members === 0;
}

const covers = (outer: string, inner: string): boolean => inner === outer || inner.startsWith(`${outer}.`);

/**
 * Whether a change touches the mask: a changed path at, under or above a mask path counts.
 * An empty mask means no mask: any change counts.
 */
export function anyPathAffected(changed: readonly string[], mask: readonly string[]): boolean {
  if (mask.length === 0) return changed.length > 0;
  return changed.some((path) => mask.some((m) => covers(m, path) || covers(path, m) || path === ''));
}
