import type { PathTree } from './path-tree.js';
import { getOwn, isPlainObject } from './paths.js';

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
  return changed.sort();
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
  const a = beforeIsObject ? before : {};
  const b = afterIsObject ? after : {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (keys.size === 0) return beforeIsObject !== afterIsObject && found(path);
  for (const key of keys) {
    const below = skipped?.get(key);
    if (below === true) continue;
    const at = path === '' ? key : `${path}.${key}`;
    if (walkChanges(getOwn(a, key), getOwn(b, key), at, below, found)) return true;
  }
  return false;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && deepEqual(getOwn(a, key), getOwn(b, key)))
  );
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
