import { afterAll, beforeAll } from 'vitest';
import { startPostgresCluster } from '../../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../../control-plane/test/helpers/postgres-cluster.js';
import { startReplica } from './cluster-replicas.js';
import type { Replica } from './cluster-replicas.js';

/**
 * Two replicas on one database of a throwaway cluster, started before the suite's tests and stopped after;
 * `extraArgs` go to both server processes. `database()` is that database's URL.
 */
export function twoReplicasOnePostgres(extraArgs: readonly string[] = []): {
  a(): Replica;
  b(): Replica;
  database(): string;
} {
  let cluster: PostgresCluster | undefined;
  let database: string | undefined;
  let a: Replica | undefined;
  let b: Replica | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
    database = cluster.createDatabase();
    a = await startReplica(database, extraArgs);
    b = await startReplica(database, extraArgs);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    cluster?.stop();
  });
  const started = (replica: Replica | undefined): Replica => {
    if (!replica) throw new Error('the replicas did not start');
    return replica;
  };
  return {
    a: () => started(a),
    b: () => started(b),
    database: () => {
      if (database === undefined) throw new Error('the database was not created');
      return database;
    },
  };
}
