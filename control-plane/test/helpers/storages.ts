import { afterAll, beforeAll, describe } from 'vitest';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { SqliteStorage } from '../../src/resources/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/resources/storage/storage.js';
import { postgresMissing, startPostgresCluster } from './postgres-cluster.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { tempDatabases } from './temp-databases.js';

export type StorageKind = Storage['kind'];

/** Opens a fresh, empty storage of the suite's kind (closed after the suite). */
export type FreshStorage = () => Storage;

/**
 * Declares a suite twice: on SQLite (a real file in a temporary folder) and on PostgreSQL (a throwaway cluster
 * for the file, a fresh database per call of `fresh`). Without PostgreSQL on the machine its half is skipped and
 * says why; under CI=true a missing PostgreSQL fails the suite instead.
 */
export function describeStorages(title: string, body: (fresh: FreshStorage, kind: StorageKind) => void): void {
  describe(`${title} [sqlite]`, () => {
    const freshDatabase = tempDatabases('outpost-storage-');
    body(() => new SqliteStorage(freshDatabase().db), 'sqlite');
  });
  const missing = postgresMissing();
  if (missing !== undefined && process.env['CI'] !== 'true') {
    console.warn(`PostgreSQL half of "${title}" skipped: ${missing}`);
    describe.skip(`${title} [postgres: skipped, ${missing}]`, () => body(() => unavailable(missing), 'postgres'));
    return;
  }
  describe(`${title} [postgres]`, () => {
    let cluster: PostgresCluster | undefined;
    const opened: Storage[] = [];
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
    body(() => {
      if (cluster === undefined) throw new Error('the PostgreSQL cluster did not start');
      const storage = new PgStorage(cluster.createDatabase());
      opened.push(storage);
      return storage;
    }, 'postgres');
  });
}

function unavailable(reason: string): never {
  throw new Error(`PostgreSQL unavailable: ${reason}`);
}
