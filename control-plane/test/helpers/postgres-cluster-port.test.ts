import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';
import { freePort, startPostgresCluster } from './postgres-cluster.js';
import { postgresSuiteSkipped } from './suite-postgres.js';

const TITLE = 'a throwaway PostgreSQL cluster';

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  it('starts on another port when its free port is taken before PostgreSQL binds it', async () => {
    // another suite running at the same time takes the port between the check and the bind
    const taker = createServer();
    await new Promise<void>((resolve) => taker.listen(0, '127.0.0.1', resolve));
    const taken = (taker.address() as AddressInfo).port;
    const offered: number[] = [];
    try {
      const cluster = await startPostgresCluster({
        durable: false,
        choosePort: async () => {
          offered.push(offered.length === 0 ? taken : await freePort());
          return offered.at(-1)!;
        },
      });
      try {
        expect(offered).toHaveLength(2);
        expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${offered[1]}/postgres`);
        const client = new SyncPostgres(cluster.url);
        try {
          expect(client.query('SELECT 1').rows).toEqual([[1]]);
        } finally {
          client.close();
        }
      } finally {
        cluster.stop();
      }
    } finally {
      await new Promise((resolve) => taker.close(resolve));
    }
  }, 120_000);
});
