import { describe, expect, it } from 'vitest';
import { joinCluster } from '../../src/cluster/cluster-member.js';
import type { ClusterMember } from '../../src/cluster/cluster-member.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { createLogger } from '../../src/server/logger.js';
import { postgresSuiteSkipped } from '../helpers/suite-postgres.js';
import { throwawayCluster } from '../helpers/throwaway-cluster.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * Advisory locks are cluster-wide in PostgreSQL: the same key taken in two databases of one PostgreSQL cluster
 * shows in pg_locks twice. A control plane counts only the replicas of its own database.
 */
describe.skipIf(postgresSuiteSkipped('cluster databases test'))(
  'control planes of different databases in one PostgreSQL cluster [postgres]',
  () => {
    const { cluster, closing } = throwawayCluster();

    const join = async (url: string): Promise<ClusterMember> => {
      const storage = new PgStorage(url);
      closing.push(() => Promise.resolve(storage.close()));
      const engine = new ResourceEngine(storage);
      engine.register(widgetDefinition);
      const member = await joinCluster({
        engine,
        coordination: engine.coordination!,
        pollMs: 600_000,
        logger: createLogger('silent'),
        jobs: [],
      });
      closing.push(() => member.close());
      return member;
    };

    it('each is alone at start in its own database, while the other runs', async () => {
      const first = await join(cluster().createDatabase());
      const second = await join(cluster().createDatabase());
      expect([first.aloneAtStart, second.aloneAtStart]).toEqual([true, true]);
    });

    it('a second replica of the same database is not alone', async () => {
      const url = cluster().createDatabase();
      await join(cluster().createDatabase()); // another database's server, running at the same time
      const first = await join(url);
      const second = await join(url);
      expect([first.aloneAtStart, second.aloneAtStart]).toEqual([true, false]);
    });
  },
);
