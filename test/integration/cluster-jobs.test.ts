/**
 * Issue 23, jobs run once: the periodic background work (the metrics history pruning) runs on the leader of two
 * real control-plane processes on one PostgreSQL and not on the other; after kill -9 of the leader, the other
 * takes the leadership and runs it. Each replica's /healthz counts the runs it made. Skipped without PostgreSQL,
 * except under CI=true.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';

const skipped = clusterTestsSkipped('cluster jobs test');
const PRUNE_JOB = 'metrics-history-prune';

interface ClusterHealth {
  leader: boolean;
  jobRuns: Record<string, number>;
}

async function clusterHealth(replica: Replica): Promise<ClusterHealth> {
  const body = (await (await fetch(`${replica.url}/healthz`)).json()) as { cluster?: ClusterHealth };
  if (body.cluster === undefined) throw new Error(`${replica.url}/healthz has no cluster section`);
  return body.cluster;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(skipped)('background jobs of control-plane replicas on one PostgreSQL', () => {
  const replicas = twoReplicasOnePostgres();
  let leader: Replica;
  let follower: Replica;
  beforeAll(async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    const aLeads = (await clusterHealth(a)).leader;
    [leader, follower] = aLeads ? [a, b] : [b, a];
  });

  it('run on the leader only, and on the other replica once the leader is killed', async () => {
    const onLeader = await until(
      () => clusterHealth(leader),
      (health) => (health.jobRuns[PRUNE_JOB] ?? 0) >= 1,
    );
    expect(onLeader.leader).toBe(true);
    const onFollower = await clusterHealth(follower);
    expect(onFollower.leader).toBe(false);
    expect(onFollower.jobRuns[PRUNE_JOB]).toBe(0);

    await leader.stop('SIGKILL');
    // /healthz tells the new leader at once; its job counts a run only after asking the database it still leads
    await until(
      () => clusterHealth(follower),
      (health) => health.leader && (health.jobRuns[PRUNE_JOB] ?? 0) >= 1,
    );
  }, 120_000);
});
