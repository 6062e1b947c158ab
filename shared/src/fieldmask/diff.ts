import { getOwn, isPlainObject } from './paths.js';

/**
 * The paths whose values differ between two documents, sorted. Objects are compared member by
 * member down to leaves; arrays and other values are compared whole. Where one side has an
 * object and the other has nothing, the object's leaves are listed (an empty object lists itself).
 */
export function changedPaths(before: unknown, after: unknown): string[] {
  const changed: string[] = [];
  collect(before, after, '', changed);
  return changed.sort();
}

function collect(before: unknown, after: unknown, path: string, changed: string[]): void {
  const beforeIsObject = isPlainObject(before);
  const afterIsObject = isPlainObject(after);
  const descend =
    (beforeIsObject || before === undefined) &&
    (afterIsObject || after === undefined) &&
    (beforeIsObject || afterIsObject);
  if (!descend) {
    if (!deepEqual(before, after)) changed.push(path);
    return;
  }
  const a = beforeIsObject ? before : {};
  const b = afterIsObject ? after : {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (keys.size === 0) {
    if (beforeIsObject !== afterIsObject) changed.push(path);
    return;
  }
  for (const key of keys) collect(getOwn(a, key), getOwn(b, key), path === '' ? key : `${path}.${key}`, changed);
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
