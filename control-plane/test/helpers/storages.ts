import { describe } from 'vitest';
import { SqliteStorage } from '../../src/resources/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/resources/storage/storage.js';
import { postgresMissing } from './postgres-cluster.js';
import { suitePostgres } from './suite-postgres.js';
import { tempDatabases } from './temp-databases.js';
import { TEST_DATABASE_VARIABLE } from './test-database.js';
import { postgresLeftOut } from './test-stores.js';

export type StorageKind = Storage['kind'];

/** Opens a fresh, empty storage of the suite's kind (closed after the suite). */
export type FreshStorage = () => Storage;

/**
 * Declares a suite twice: on SQLite (a real file in a temporary folder) and on PostgreSQL (a throwaway cluster
 * for the file, a fresh database per call of `fresh`). Without PostgreSQL on the machine its half is skipped and
 * says why; under CI=true a missing PostgreSQL fails the suite instead. OUTPOST_TEST_STORES=sqlite skips it on
 * purpose (test-stores.ts).
 */
export function describeStorages(title: string, body: (fresh: FreshStorage, kind: StorageKind) => void): void {
  // A file listed for the postgres project (for its server suites) already ran both halves in the default project.
  if (process.env[TEST_DATABASE_VARIABLE] === 'postgres') return;
  describe(`${title} [sqlite]`, () => {
    const freshDatabase = tempDatabases('outpost-storage-');
    body(() => new SqliteStorage(freshDatabase().db), 'sqlite');
  });
  const leftOut = postgresLeftOut();
  if (leftOut !== undefined) {
    describe.skip(`${title} [postgres: skipped, ${leftOut}]`, () => body(() => unavailable(leftOut), 'postgres'));
    return;
  }
  const missing = postgresMissing();
  if (missing !== undefined && process.env['CI'] !== 'true') {
    console.warn(`PostgreSQL half of "${title}" skipped: ${missing}`);
    describe.skip(`${title} [postgres: skipped, ${missing}]`, () => body(() => unavailable(missing), 'postgres'));
    return;
  }
  describe(`${title} [postgres]`, () => {
    const postgres = suitePostgres();
    body(() => postgres.open(postgres.createDatabase()), 'postgres');
  });
}

function unavailable(reason: string): never {
  throw new Error(`PostgreSQL unavailable: ${reason}`);
}

/** `storage`, with no flush per commit on SQLite (the throwaway PostgreSQL cluster does none either): for tests of values. */
export function withoutFlush(storage: Storage): Storage {
  if (storage instanceof SqliteStorage) storage.db.pragma('synchronous = OFF');
  return storage;
}
