import { randomUUID } from 'node:crypto';
import { changedOutside, pathTree, type PathTree } from '@outpost/shared';
import { isDocument, memberDocument } from './doc-utils.js';
import type { Doc } from './resource-table.js';

export type { PathTree };

/** The paths a write may change without it counting as a change of the spec: metadata and `outputOnly`. */
export const systemOwnedPaths = (outputOnly: readonly string[]): PathTree => pathTree(['metadata', ...outputOnly]);

/**
 * True when a change touches what the user asked for: anything but metadata and system-owned paths. The
 * same answer as asking whether changedPaths(before, after) holds a path `skipped` does not cover, without
 * listing them all.
 */
export function specChanged(before: Doc, after: Doc, skipped: PathTree): boolean {
  return changedOutside(before, after, skipped);
}

/**
 * Whether a write that set the top-level members `changedKeys` of `before` (giving `after()`) changed the
 * spec: without building `after` or walking it when every one of them is wholly system-owned.
 */
export function specChangedIn(
  before: Doc,
  after: () => Doc,
  changedKeys: readonly string[],
  skipped: PathTree,
): boolean {
  return changedKeys.some((key) => skipped.get(key) !== true) && specChanged(before, after(), skipped);
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
  return { ...after, metadata: stampedMetadata(before, after['metadata'], now, version, specChange) };
}

/** The metadata `stampMetadata` gives a document whose metadata as written is `metadata`. */
export function stampedMetadata(
  before: Doc | undefined,
  metadata: unknown,
  now: string,
  version: number,
  specChange: boolean,
): Doc {
  const previous = memberDocument(before, 'metadata');
  const meta = { ...(isDocument(metadata) ? metadata : {}) };
  meta['createTime'] = previous['createTime'] ?? now;
  meta['updateTime'] = now;
  meta['uuid'] = previous['uuid'] ?? randomUUID();
  const generation = typeof previous['generation'] === 'number' ? previous['generation'] : 0;
  meta['generation'] = before === undefined ? 1 : specChange ? generation + 1 : generation;
  meta['resourceVersion'] = String(version);
  return meta;
}
