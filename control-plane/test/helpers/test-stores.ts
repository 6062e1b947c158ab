/**
 * Set to `sqlite` (.ci/test-on-node22 does): the run checks the runtime, not the stores, so the PostgreSQL halves
 * of describeStorages suites and the PostgreSQL-only suites that ask postgresSuiteSkipped are skipped, also under
 * CI=true. The run on the image's Node.js runs them.
 */
export const TEST_STORES_VARIABLE = 'OUTPOST_TEST_STORES';

/** Why PostgreSQL is left out of this run on purpose, or undefined when it is not. */
export function postgresLeftOut(): string | undefined {
  const stores = process.env[TEST_STORES_VARIABLE];
  if (stores === undefined || stores === '') return undefined;
  if (stores !== 'sqlite') throw new Error(`${TEST_STORES_VARIABLE} must be "sqlite" or unset, not "${stores}"`);
  return `${TEST_STORES_VARIABLE}=sqlite: this run checks the runtime on SQLite only`;
}
