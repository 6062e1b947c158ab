/**
 * Issue 23, jobs run once: of two real control-plane processes on one PostgreSQL, one leads (a session advisory
 * lock); kill -9 of the leader moves the leadership to the other, and what the dead one acknowledged is there.
 * Skipped without PostgreSQL, except under CI=true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import { clusterTestsSkipped, startReplica } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';

const skipped = clusterTestsSkipped('cluster leader test');

interface Health {
  ok: boolean;
  cluster?: { leader: boolean; position: number };
}

const health = async (replica: Replica): Promise<Health> =>
  (await fetch(`${replica.url}/healthz`)).json() as Promise<Health>;

describe.skipIf(skipped)('the leader of control-plane replicas on one PostgreSQL', () => {
  let cluster: PostgresCluster;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
    const database = cluster.createDatabase();
    a = await startReplica(database);
    b = await startReplica(database);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    cluster?.stop();
  });

  it('is one replica; kill -9 of it moves the leadership, and its acknowledged writes stay', async () => {
    expect((await health(a)).cluster?.leader).toBe(true);
    expect((await health(b)).cluster?.leader).toBe(false);
    await a.admin.create('', 'deviceTypes', { name: 'deviceTypes/acknowledged', architecture: 'AMD64' });
    await a.stop('SIGKILL');
    for (;;) {
      if ((await health(b)).cluster?.leader === true) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const kept = await b.admin.get<{ name: string }>('deviceTypes/acknowledged');
    expect(kept.name).toBe('deviceTypes/acknowledged');
  }, 120_000);
});
