import type { Replica } from './cluster-replicas.js';
import { replicasOnePostgres } from './replicas-one-postgres.js';

/**
 * Two replicas on one database of a throwaway cluster, started before the suite's tests and stopped after;
 * `extraArgs` go to both server processes. `database()` is that database's URL.
 */
export function twoReplicasOnePostgres(extraArgs: readonly string[] = []): {
  a(): Replica;
  b(): Replica;
  database(): string;
} {
  const replicas = replicasOnePostgres(2, extraArgs);
  return { a: () => replicas.replica(0), b: () => replicas.replica(1), database: replicas.database };
}
