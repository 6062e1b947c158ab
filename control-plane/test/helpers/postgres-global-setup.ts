import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';
import type {} from './test-database.js'; // its ProvidedContext declaration (elided at run time)

/** The `postgres` vitest project: one throwaway cluster for the whole run, stopped when it ends. */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster({ durable: false });
  project.provide('postgresAdminUrl', cluster.url);
  return () => cluster.stop();
}
