import { afterAll, beforeAll } from 'vitest';
import { startPostgresCluster } from '../../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../../control-plane/test/helpers/postgres-cluster.js';
import { startReplica } from './cluster-replicas.js';
import type { Replica } from './cluster-replicas.js';

/**
 * `count` replicas on one database of a throwaway cluster, started one after the other before the suite's tests
 * and stopped after; `extraArgs` go to every server process. `replica(i)` is the i-th (from 0), `database()` the
 * database's URL.
 */
export function replicasOnePostgres(
  count: number,
  extraArgs: readonly string[] = [],
): { replica(index: number): Replica; database(): string } {
  let cluster: PostgresCluster | undefined;
  let database: string | undefined;
  const replicas: Replica[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
    database = cluster.createDatabase();
    for (let i = 0; i < count; i++) replicas.push(await startReplica(database, extraArgs));
  }, 60_000 * count);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    cluster?.stop();
  });
  return {
    replica: (index) => {
      const replica = replicas[index];
      if (!replica) throw new Error(`replica ${index} did not start`);
      return replica;
    },
    database: () => {
      if (database === undefined) throw new Error('the database was not created');
      return database;
    },
  };
}
