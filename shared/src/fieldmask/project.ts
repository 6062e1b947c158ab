import { deletePath, getOwn, getPath, isPlainObject, setOwn, setPath } from './paths.js';
import type { PlainObject } from './paths.js';
import { pathTree, type PathTree } from './path-tree.js';

function project(doc: PlainObject, trie: PathTree): PlainObject {
  const out: PlainObject = {};
  // Walks the document's keys, so the copy keeps the document's key order.
  for (const key of Object.keys(doc)) {
    const wanted = trie.get(key);
    const value = getOwn(doc, key);
    if (wanted === undefined || value === undefined) continue;
    if (wanted === true) {
      setOwn(out, key, structuredClone(value));
    } else if (isPlainObject(value)) {
      const inner = project(value, wanted);
      if (Object.keys(inner).length > 0) setOwn(out, key, inner);
    }
  }
  return out;
}

/**
 * A deep copy of `doc` holding only `paths` (a path takes its whole subtree); paths absent from
 * `doc` are omitted. An empty list means no mask: the whole document is copied.
 */
export function projectFields<T>(doc: T, paths: readonly string[]): Partial<T> {
  if (paths.length === 0 || !isPlainObject(doc)) return structuredClone(doc);
  return project(doc, pathTree(paths)) as Partial<T>;
}

/**
 * A new object: `stored` with the value at each path replaced by `patch`'s value there, or removed
 * where `patch` has none. An empty list changes nothing (full replacement is the caller's choice).
 */
export function applyUpdateMask<T extends object>(stored: T, patch: unknown, paths: readonly string[]): T {
  const result = structuredClone(stored) as T & PlainObject;
  for (const path of paths) {
    const value = getPath(patch, path);
    if (value === undefined) deletePath(result, path);
    else setPath(result, path, structuredClone(value));
  }
  return result;
}
