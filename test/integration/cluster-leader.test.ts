/**
 * Issue 23, jobs run once: of two real control-plane processes on one PostgreSQL, one leads (a session advisory
 * lock); kill -9 of the leader moves the leadership to the other, and what the dead one acknowledged is there.
 * Skipped without PostgreSQL, except under CI=true.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';

const skipped = clusterTestsSkipped('cluster leader test');

interface Health {
  ok: boolean;
  cluster?: { leader: boolean; position: number };
}

const health = async (replica: Replica): Promise<Health> =>
  (await fetch(`${replica.url}/healthz`)).json() as Promise<Health>;

describe.skipIf(skipped)('the leader of control-plane replicas on one PostgreSQL', () => {
  const replicas = twoReplicasOnePostgres();
  let a: Replica;
  let b: Replica;
  beforeAll(() => {
    a = replicas.a();
    b = replicas.b();
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
