import { afterAll, beforeAll, expect } from 'vitest';
import { startPostgresCluster } from './postgres-cluster.js';
import type { PostgresCluster } from './postgres-cluster.js';

export interface ThrowawayCluster {
  /** the cluster, started before the suite's tests */
  cluster(): PostgresCluster;
  /** closed after the suite, the last registered first */
  closing: (() => Promise<void>)[];
  /** what the suite's parts reported: the suite fails unless it stays empty */
  errors: unknown[];
}

/** Called inside a describe: a throwaway PostgreSQL cluster for its tests, and what they close when they end. */
export function throwawayCluster(): ThrowawayCluster {
  let cluster: PostgresCluster | undefined;
  const closing: (() => Promise<void>)[] = [];
  const errors: unknown[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch((err: unknown) => errors.push(err));
    cluster?.stop();
    expect(errors).toEqual([]);
  });
  return {
    cluster: () => {
      if (cluster === undefined) throw new Error('the cluster has not started');
      return cluster;
    },
    closing,
    errors,
  };
}
