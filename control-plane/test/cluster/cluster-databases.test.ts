import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCluster } from '../../src/cluster/cluster-member.js';
import type { ClusterMember } from '../../src/cluster/cluster-member.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { createLogger } from '../../src/server/logger.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { widgetDefinition } from '../helpers/widgets.js';

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`cluster databases test skipped: ${missing}; CI=true requires PostgreSQL`);

/**
 * Advisory locks are cluster-wide in PostgreSQL: the same key taken in two databases of one PostgreSQL cluster
 * shows in pg_locks twice. A control plane counts only the replicas of its own database.
 */
describe.skipIf(skipped)('control planes of different databases in one PostgreSQL cluster [postgres]', () => {
  let cluster: PostgresCluster;
  const storages: PgStorage[] = [];
  const members: ClusterMember[] = [];

  const join = async (url: string): Promise<ClusterMember> => {
    const storage = new PgStorage(url);
    storages.push(storage);
    const engine = new ResourceEngine(storage);
    engine.register(widgetDefinition);
    const member = await joinCluster({ engine, url, pollMs: 600_000, logger: createLogger('silent'), jobs: [] });
    members.push(member);
    return member;
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(members.map((member) => member.close()));
    for (const storage of storages) storage.close();
    cluster?.stop();
  });

  it('each is alone at start in its own database, while the other runs', async () => {
    const first = await join(cluster.createDatabase());
    const second = await join(cluster.createDatabase());
    expect([first.aloneAtStart, second.aloneAtStart]).toEqual([true, true]);
  });

  it('a second replica of the same database is not alone', async () => {
    const url = cluster.createDatabase();
    await join(cluster.createDatabase()); // another database's server, running at the same time
    const first = await join(url);
    const second = await join(url);
    expect([first.aloneAtStart, second.aloneAtStart]).toEqual([true, false]);
  });
});
