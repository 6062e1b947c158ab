import { describe, expect, it } from 'vitest';
import { PgPresence } from '../../src/resources/storage/postgres/pg-presence.js';
import { postgresSuiteSkipped } from '../helpers/suite-postgres.js';
import { throwawayCluster } from '../helpers/throwaway-cluster.js';
import { startLoggedServer } from './logged-server.js';

/**
 * Closing a control plane is idempotent on both stores: a second close, after the first or while it runs,
 * resolves and logs no error.
 */
describe('closing a control plane twice', () => {
  it('on SQLite', async () => {
    const s = await startLoggedServer();
    await s.dispose();
    await expect(s.server.close()).resolves.toBeUndefined();
    expect(s.serverErrors()).toEqual([]);
  });

  describe.skipIf(postgresSuiteSkipped('close-twice test on PostgreSQL'))(
    'on PostgreSQL (a cluster replica) [postgres]',
    () => {
      const { cluster, errors } = throwawayCluster();

      it('one after the other', async () => {
        const s = await startLoggedServer({ database: cluster().createDatabase() });
        await s.dispose();
        await expect(s.server.close()).resolves.toBeUndefined();
        expect(s.serverErrors()).toEqual([]);
      });

      it('both at once', async () => {
        const s = await startLoggedServer({ database: cluster().createDatabase() });
        await expect(Promise.all([s.server.close(), s.dispose()])).resolves.toEqual([undefined, undefined]);
        expect(s.serverErrors()).toEqual([]);
      });

      it("the presence store's connections", async () => {
        const presence = await PgPresence.open(cluster().createDatabase(), (err) => errors.push(err));
        await presence.close();
        await expect(presence.close()).resolves.toBeUndefined();
      });
    },
  );
});
