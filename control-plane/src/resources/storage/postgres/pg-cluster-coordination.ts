import type { Coordination } from '../coordination.js';
import { PgArtifactHolds } from './pg-artifact-holds.js';
import { PgCoordination } from './pg-coordination.js';
import { PgPresence } from './pg-presence.js';
import type { PgStorage } from './pg-storage.js';
import { pgUnclaimedLinks } from './pg-unclaimed-links.js';

/** The replicas' coordination in the PostgreSQL database of `storage`: connections of their own to its URL. */
export function pgClusterCoordination(storage: PgStorage): Coordination {
  return {
    connect: (onEnd) => PgCoordination.connect(storage.url, onEnd),
    openPresence: (onError) => PgPresence.open(storage.url, onError),
    openArtifactHolds: (onError) => PgArtifactHolds.open(storage.url, onError),
    unclaimedLinks: pgUnclaimedLinks(storage),
  };
}
