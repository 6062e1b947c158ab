import { splitPath } from './paths.js';

/** Paths as a tree of their keys; `true` marks a path whose whole subtree is covered. */
export type PathTree = Map<string, PathTree | true>;

/** The tree of dotted paths (a path under another one adds nothing). */
export function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    const keys = splitPath(path);
    let node = root;
    for (const [i, key] of keys.entries()) {
      const existing = node.get(key);
      if (existing === true) break; // already covered by a shorter path
      if (i === keys.length - 1) {
        node.set(key, true);
        break;
      }
      const child: PathTree = existing ?? new Map();
      node.set(key, child);
      node = child;
    }
  }
  return root;
}
