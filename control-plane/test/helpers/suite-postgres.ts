import { afterAll, beforeAll } from 'vitest';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { postgresMissing, startPostgresCluster } from './postgres-cluster.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { postgresLeftOut } from './test-stores.js';

/**
 * Whether a PostgreSQL-only suite is skipped here (no PostgreSQL on the machine, or OUTPOST_TEST_STORES=sqlite;
 * says why on stderr). Under CI=true a missing PostgreSQL is no reason: it then fails the suite.
 */
export function postgresSuiteSkipped(title: string): boolean {
  const leftOut = postgresLeftOut();
  if (leftOut !== undefined) {
    console.warn(`${title} skipped: ${leftOut}`);
    return true;
  }
  const missing = postgresMissing();
  if (missing === undefined || process.env['CI'] === 'true') return false;
  console.warn(`${title} skipped: ${missing}; CI=true requires PostgreSQL`);
  return true;
}

/**
 * A throwaway PostgreSQL cluster for the suite (call inside its describe): started before its tests, stopped
 * after them, with every storage opened through `open` closed first.
 */
export function suitePostgres(): { createDatabase(): string; open(url: string): PgStorage } {
  let cluster: PostgresCluster | undefined;
  const opened: PgStorage[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(() => {
    try {
      for (const storage of opened) storage.close();
    } finally {
      cluster?.stop();
    }
  });
  return {
    createDatabase: () => {
      if (cluster === undefined) throw new Error('the PostgreSQL cluster did not start');
      return cluster.createDatabase();
    },
    open: (url) => {
      const storage = new PgStorage(url);
      opened.push(storage);
      return storage;
    },
  };
}
