import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the `postgres` database of the project's throwaway cluster (see test-database.ts) */
    postgresAdminUrl: string;
  }
}

/** The `postgres` vitest project: one throwaway cluster for the whole run, stopped when it ends. */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster({ durable: false });
  project.provide('postgresAdminUrl', cluster.url);
  return () => cluster.stop();
}
