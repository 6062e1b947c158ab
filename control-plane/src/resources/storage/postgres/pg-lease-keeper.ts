import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { LeaseKeeper, LeaseKeeping } from '../presence-store.js';

/** Renews replica $1's lease for $2 ms more; an expired lease is not renewed (a sweep may be marking its devices Offline). */
export const RENEW_LEASE = `UPDATE outpost_replicas SET expires = now() + $2 * interval '1 millisecond'
  WHERE replica = $1 AND expires > now()`;

/** How often the main thread stamps the shared clock the worker reads. */
const STAMP_EVERY_MS = 250;

/*
 * The worker owns one `pg` connection (made again after it fails). Every `everyMs` it renews the lease, if the
 * main thread's stamp is recent enough, and posts { renewed } or { error }; a stale stamp posts nothing.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const pg = require(workerData.driver);
const stamp = new BigInt64Array(workerData.stamp);
let client;
let stopped = false;
parentPort.on('message', () => {
  stopped = true;
  if (client) client.end().catch(() => {});
});
async function renew() {
  if (Date.now() - Number(Atomics.load(stamp, 0)) > workerData.mainSilenceMs) return;
  try {
    if (!client) {
      const fresh = new pg.Client({ connectionString: workerData.url });
      fresh.on('error', () => { if (client === fresh) client = undefined; });
      client = fresh;
      await fresh.connect();
    }
    const { rowCount } = await client.query(workerData.sql, [workerData.replica, workerData.leaseMs]);
    if (!stopped) parentPort.postMessage({ renewed: rowCount === 1 });
  } catch (err) {
    if (client) client.end().catch(() => {});
    client = undefined;
    if (!stopped) parentPort.postMessage({ error: String(err && err.message || err) });
  }
}
(async () => {
  while (!stopped) {
    await renew();
    await new Promise((resolve) => setTimeout(resolve, workerData.everyMs));
  }
})();
`;

const workerReportSchema = z.union([z.object({ renewed: z.boolean() }), z.object({ error: z.string() })]);

/**
 * Renews a replica's presence lease from a worker thread with its own connection, so that the renewal waits
 * neither for the main thread (a connect wave or a long batch of synchronous work) nor behind the presence
 * pool's claims and lookups. It renews only while the main thread stamps a shared clock: a main thread silent
 * for `mainSilenceMs` is taken for wedged, and its lease runs out like a dead replica's.
 */
export function keepLeaseFromWorker(url: string, keeping: LeaseKeeping): LeaseKeeper {
  const stamp = new BigInt64Array(new SharedArrayBuffer(8));
  const mark = (): void => void Atomics.store(stamp, 0, BigInt(Date.now()));
  mark();
  const stamper = setInterval(mark, STAMP_EVERY_MS);
  stamper.unref();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('pg'),
      url,
      sql: RENEW_LEASE,
      stamp: stamp.buffer,
      replica: keeping.replica,
      leaseMs: Math.round(keeping.leaseMs),
      everyMs: keeping.everyMs,
      mainSilenceMs: keeping.mainSilenceMs,
    },
  });
  worker.unref();
  worker.on('message', (message: unknown) => {
    const report = workerReportSchema.safeParse(message);
    if (!report.success) return;
    if ('renewed' in report.data) keeping.onRenewal(report.data.renewed);
    else keeping.onError(new Error(`renewing the presence lease: ${report.data.error}`));
  });
  worker.on('error', (err) => keeping.onError(err));
  return {
    async stop() {
      clearInterval(stamper);
      worker.postMessage('stop');
      await worker.terminate();
    },
  };
}
