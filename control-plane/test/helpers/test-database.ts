import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';

// declared beside its only reader, so every program that type-checks a test server sees it
declare module 'vitest' {
  export interface ProvidedContext {
    /** the `postgres` database of the project's throwaway cluster (postgres-global-setup.ts) */
    postgresAdminUrl: string;
  }
}

/** Set to `postgres` (the `postgres` vitest project does): test servers keep their resources in PostgreSQL. */
export const TEST_DATABASE_VARIABLE = 'OUTPOST_TEST_DATABASE';

/**
 * The `database` setting of a test server: none (SQLite in its data folder) unless OUTPOST_TEST_DATABASE is
 * `postgres`; then a fresh database in the project's throwaway cluster (postgres-global-setup.ts).
 */
export function testDatabase(): { database?: string } {
  if (process.env[TEST_DATABASE_VARIABLE] !== 'postgres') return {};
  const admin = inject('postgresAdminUrl');
  if (!admin) throw new Error(`${TEST_DATABASE_VARIABLE}=postgres needs the postgres project's cluster`);
  const name = `t_${randomBytes(8).toString('hex')}`;
  const pg = new SyncPostgres(admin);
  try {
    pg.query(`CREATE DATABASE ${name}`);
  } finally {
    pg.close();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { database: url.toString() };
}

/** where a data folder remembers its test server's PostgreSQL database, so that a restart on it reopens that database */
const DATABASE_NOTE = 'test-database-url';

/**
 * The `database` setting of a test server on data folder `dataDir`: the one a server on this folder had before (a
 * restart keeps its data on PostgreSQL too, as it does in the folder's SQLite file), else a fresh one (testDatabase).
 */
export function testDatabaseIn(dataDir: string): { database?: string } {
  const note = join(dataDir, DATABASE_NOTE);
  if (existsSync(note)) return { database: readFileSync(note, 'utf8') };
  const setting = testDatabase();
  if (setting.database !== undefined) writeFileSync(note, setting.database);
  return setting;
}
