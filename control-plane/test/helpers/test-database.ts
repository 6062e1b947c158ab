import { postgresMissing, startPostgresCluster } from './postgres-cluster.js';
import type { PostgresCluster } from './postgres-cluster.js';

/** Set to `postgres` (the `postgres` vitest project does): test servers keep their resources in PostgreSQL. */
export const TEST_DATABASE_VARIABLE = 'OUTPOST_TEST_DATABASE';

let cluster: Promise<PostgresCluster> | undefined;

/**
 * The `database` setting of a test server: none (SQLite in its data folder) unless OUTPOST_TEST_DATABASE is
 * `postgres`; then a fresh database in a throwaway cluster started once per test process (stopped at its exit).
 */
export async function testDatabase(): Promise<{ database?: string }> {
  if (process.env[TEST_DATABASE_VARIABLE] !== 'postgres') return {};
  const missing = postgresMissing();
  if (missing !== undefined) throw new Error(`${TEST_DATABASE_VARIABLE}=postgres, but ${missing}`);
  if (cluster === undefined) {
    cluster = startPostgresCluster({ durable: false });
    const started = await cluster;
    process.once('exit', () => started.stop());
  }
  return { database: (await cluster).createDatabase() };
}
