import type { Coordination } from './coordination.js';
import { pgClusterCoordination } from './postgres/pg-cluster-coordination.js';
import { PgStorage } from './postgres/pg-storage.js';
import type { Storage } from './storage.js';

/** How replicas sharing `storage` coordinate; undefined for a store only one process opens (a SQLite file). */
export function openCoordination(storage: Storage): Coordination | undefined {
  return storage instanceof PgStorage ? pgClusterCoordination(storage) : undefined;
}
