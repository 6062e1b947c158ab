import { invalidArgument } from '@outpost/shared';
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
 * Deletes the stored artifacts no OS version refers to that were stored before `storedBefore`. The references
 * are read after the listing and the deletions made in the same tick, so a version created meanwhile keeps its
 * artifact.
 */
export async function collectArtifactGarbage(
  store: ArtifactStore,
  referencedArtifacts: () => Set<string>,
  storedBefore: Date,
): Promise<ArtifactGarbage> {
  const stored = await store.list();
  const referenced = referencedArtifacts();
  const removed = stored
    .filter((a) => !referenced.has(a.sha256) && a.storedAt < storedBefore)
    .filter((a) => store.removeSync(a.sha256))
    .map(({ sha256, size }) => ({ sha256, size }));
  return { removed, freedBytes: removed.reduce((sum, a) => sum + a.size, 0) };
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
      const request = (body ?? {}) as Record<string, unknown>;
      if (typeof request !== 'object' || Array.isArray(request)) {
        throw invalidArgument('the request body must be a JSON object');
      }
      const minAge = request['minAgeSeconds'] ?? DEFAULT_GC_MIN_AGE_SECONDS;
      if (typeof minAge !== 'number' || !Number.isInteger(minAge) || minAge < 0 || minAge > MAX_GC_MIN_AGE_SECONDS) {
        throw invalidArgument(`minAgeSeconds must be an integer from 0 to ${MAX_GC_MIN_AGE_SECONDS}`);
      }
      return collectArtifactGarbage(store, referencedArtifacts, new Date(now().getTime() - minAge * 1000));
    },
  };
}
