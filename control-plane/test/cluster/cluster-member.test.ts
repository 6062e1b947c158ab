import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEADER_LOCK_KEY, joinCluster } from '../../src/cluster/cluster-member.js';
import type { ClusterMember } from '../../src/cluster/cluster-member.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { createLogger } from '../../src/server/logger.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { widgetDefinition } from '../helpers/widgets.js';

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`cluster member test skipped: ${missing}; CI=true requires PostgreSQL`);

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(skipped)('replicas joining one PostgreSQL database [postgres]', () => {
  let cluster: PostgresCluster;
  const storages: PgStorage[] = [];
  const members: ClusterMember[] = [];

  const join = async (url: string, jobRuns: string[], tag: string, pollMs = 50, leaderSilenceMs?: number) => {
    const storage = new PgStorage(url);
    storages.push(storage);
    const engine = new ResourceEngine(storage);
    engine.register(widgetDefinition);
    const member = await joinCluster({
      engine,
      coordination: engine.coordination!,
      pollMs,
      ...(leaderSilenceMs === undefined ? {} : { leaderSilenceMs }),
      logger: createLogger('silent'),
      jobs: [
        {
          name: 'tally',
          start: () => {
            jobRuns.push(`${tag} started`);
            return () => jobRuns.push(`${tag} stopped`);
          },
        },
      ],
    });
    members.push(member);
    return { engine, member };
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(members.map((member) => member.close()));
    for (const storage of storages) storage.close();
    cluster?.stop();
  });

  it('runs the leader jobs on one replica at a time; they move when the leader leaves', async () => {
    const url = cluster.createDatabase();
    const runs: string[] = [];
    const first = await join(url, runs, 'a');
    const second = await join(url, runs, 'b');
    expect([first.member.aloneAtStart, second.member.aloneAtStart]).toEqual([true, false]);
    expect([first.member.isLeader, second.member.isLeader]).toEqual([true, false]);
    expect(runs).toEqual(['a started']);
    await first.member.close(); // its connection ends, and with it the lock
    await until(() => second.member.isLeader, 'the second replica leads');
    expect(runs).toEqual(['a started', 'a stopped', 'b started']);
  });

  it('ends the session of a leader that went silent (a frozen process) and leads in its place', async () => {
    const url = cluster.createDatabase();
    // a frozen leader: it holds the lock on an open session and starts no statement any more
    const frozen = new pg.Client({ connectionString: url });
    await frozen.connect();
    const sessionEnded = new Promise<unknown>((resolve) => frozen.on('error', resolve));
    await frozen.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY]);
    const runs: string[] = [];
    const live = await join(url, runs, 'b', 50, 1000);
    await until(() => live.member.isLeader, 'the live replica leads');
    expect(runs).toEqual(['b started']);
    expect(String(await sessionEnded)).toMatch(/terminat/);
    await frozen.end().catch(() => undefined);
  });

  it("wakes a replica's watchers on another's commit (NOTIFY), without waiting for a poll", async () => {
    const url = cluster.createDatabase();
    const a = await join(url, [], 'a', 600_000);
    const b = await join(url, [], 'b', 600_000); // no poll in this test's time
    const seen: string[] = [];
    b.engine.bus.subscribe('widgets', (change) => seen.push(change.name));
    a.engine.resource('widgets').put({ name: 'projects/pp/regions/rr/widgets/w1' });
    await until(() => seen.length === 1, 'the change reaches b');
    expect(seen).toEqual(['projects/pp/regions/rr/widgets/w1']);
    expect(b.member.position).toBe(a.member.position);
  });
});
