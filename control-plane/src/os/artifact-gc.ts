import { invalidArgument } from '@outpost/shared';
import { isDocument } from '../resources/doc-utils.js';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ArtifactStore, StoredArtifact } from './artifact-store.js';

export const ARTIFACT_GC_PERMISSION = 'services/devices.outpost/permissions/osVersions.delete';
/** An artifact younger than this is kept: it may be an upload whose version `os publish` is about to create. */
export const DEFAULT_GC_MIN_AGE_SECONDS = 3600;
const MAX_GC_MIN_AGE_SECONDS = 365 * 24 * 3600;

export interface ArtifactGarbage {
  removed: StoredArtifact[];
  freedBytes: number;
}

/**
 * Deletes the stored artifacts no OS version refers to that were stored before `storedBefore` and that no
 * replica is serving (each is claimed first: a download holds its artifact). The references are read again
 * after the claims, and the deletions made in the same tick, so a version created meanwhile keeps its artifact.
 */
export async function collectArtifactGarbage(
  store: ArtifactStore,
  referencedArtifacts: () => Set<string>,
  storedBefore: Date,
): Promise<ArtifactGarbage> {
  const stored = await store.list();
  const referencedAtFirst = referencedArtifacts();
  const claimed: { artifact: StoredArtifact; release: () => void }[] = [];
  try {
    for (const artifact of stored) {
      if (referencedAtFirst.has(artifact.sha256) || artifact.storedAt >= storedBefore) continue;
      const release = await store.claim(artifact.sha256);
      if (release) claimed.push({ artifact: { sha256: artifact.sha256, size: artifact.size }, release });
    }
    const referenced = referencedArtifacts();
    const removed = claimed
      .map(({ artifact }) => artifact)
      .filter((a) => !referenced.has(a.sha256) && store.removeSync(a.sha256));
    return { removed, freedBytes: removed.reduce((sum, a) => sum + a.size, 0) };
  } finally {
    for (const { release } of claimed) release();
  }
}

/** `POST /v1/artifacts:collectGarbage` `{minAgeSeconds?}`: what `outpost os gc` calls. */
export function artifactGcMethod(
  store: ArtifactStore,
  referencedArtifacts: () => Set<string>,
  now: () => Date,
): CustomMethod {
  return {
    plural: 'artifacts',
    verb: 'collectGarbage',
    scope: 'root',
    httpMethod: 'POST',
    permission: ARTIFACT_GC_PERMISSION,
    handle: ({ body }) => {
      const request = body ?? {};
      if (!isDocument(request)) throw invalidArgument('the request body must be a JSON object');
      const minAge = request['minAgeSeconds'] ?? DEFAULT_GC_MIN_AGE_SECONDS;
      if (typeof minAge !== 'number' || !Number.isInteger(minAge) || minAge < 0 || minAge > MAX_GC_MIN_AGE_SECONDS) {
        throw invalidArgument(`minAgeSeconds must be an integer from 0 to ${MAX_GC_MIN_AGE_SECONDS}`);
      }
      return collectArtifactGarbage(store, referencedArtifacts, new Date(now().getTime() - minAge * 1000));
    },
  };
}
