import { randomUUID } from 'node:crypto';
import { changedPaths } from '@outpost/shared';
import type { Doc } from './resource-table.js';

/** True when a change touches what the user asked for: anything but metadata and system-owned paths. */
export function specChanged(before: Doc, after: Doc, outputOnly: readonly string[]): boolean {
  return changedPaths(before, after).some(
    (p) => !p.startsWith('metadata.') && p !== 'metadata' && !outputOnly.some((o) => p === o || p.startsWith(o + '.')),
  );
}

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
