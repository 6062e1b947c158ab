import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncPostgres } from '../../../src/resources/storage/postgres/sync-postgres.js';
import { postgresMissing, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

/** The synchronous PostgreSQL connection: every statement gets its own answer, also after one was given up on. */
const missing = postgresMissing();
const required = process.env['CI'] === 'true';
if (missing !== undefined && !required) console.warn(`synchronous PostgreSQL test skipped: ${missing}`);

describe.skipIf(missing !== undefined && !required)('a synchronous PostgreSQL connection', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('answers a statement with its own result after one it gave up on answered late', () => {
    // gives up after 3 s on a statement that takes 4 s: the next statement's wait spans the late answer
    const pg = new SyncPostgres(cluster.createDatabase(), 3000);
    try {
      expect(() => pg.query('SELECT pg_sleep(4)')).toThrow('timed out');
      // the late answer to pg_sleep arrives while this one waits: it must not be taken for this one's
      expect(pg.query('SELECT 7 AS seven').rows).toEqual([[7]]);
      expect(pg.query("SELECT 'next'").rows).toEqual([['next']]);
    } finally {
      pg.close();
    }
  });
});
