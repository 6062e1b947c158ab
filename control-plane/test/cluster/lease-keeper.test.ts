import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PresenceLeases } from '../../src/cluster/presence-leases.js';
import type { PresenceStore } from '../../src/resources/storage/presence-store.js';
import { PgPresence } from '../../src/resources/storage/postgres/pg-presence.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { replicaDevices } from '../helpers/replica-devices.js';
import type { ReplicaDevices } from '../helpers/replica-devices.js';

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`lease keeper test skipped: ${missing}; CI=true requires PostgreSQL`);

/** Long synchronous work on the main thread: no timer, no I/O callback runs meanwhile. */
function blockMainThread(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe.skipIf(skipped)('the presence lease renewed off the main thread [postgres]', () => {
  let cluster: PostgresCluster;
  let url: string;
  let store: PgPresence;
  const owned: ReplicaDevices[] = [];
  const errors: unknown[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
    url = cluster.createDatabase();
    store = await PgPresence.open(url, (err) => errors.push(err));
  }, 120_000);
  afterAll(async () => {
    for (const own of owned) own.close();
    await store?.close();
    cluster?.stop();
  });

  const expiredReplicas = async (): Promise<string[]> => [...new Set((await store.expired()).map((l) => l.replica))];

  /** A replica holding one device's link, with `mainSilenceMs`; what it is told is recorded. */
  async function replica(id: string, options: { leaseMs: number; mainSilenceMs: number }, using: PresenceStore) {
    const told: string[] = [];
    const own = replicaDevices(url, id, (err) => errors.push(err));
    owned.push(own);
    const leases = new PresenceLeases({
      store: using,
      releaseEnded: (links) => own.releaseEnded(links),
      replica: id,
      leaseMs: options.leaseMs,
      renewEveryMs: 200,
      mainSilenceMs: options.mainSilenceMs,
      onTakenOver: (device) => told.push(`taken over: ${device}`),
      onLeaseLost: () => told.push('lease lost'),
      onError: (err) => errors.push(err),
    });
    await leases.start(`http://${id}.invalid:1`);
    leases.connected(`devices/${id}`, () => {});
    for (const deadline = Date.now() + 60_000; (await store.locate(`devices/${id}`)) === undefined;) {
      if (Date.now() > deadline) throw new Error('the claim was not stored');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { leases, told };
  }

  it('keeps the lease of a replica whose main thread is busy for longer than the lease', async () => {
    const { leases, told } = await replica('busy', { leaseMs: 3000, mainSilenceMs: 60_000 }, store);
    try {
      blockMainThread(6000); // twice the lease: renewed from the main thread, it would have lapsed
      expect(await expiredReplicas()).not.toContain('busy');
      expect(told).toEqual([]);
    } finally {
      await leases.close();
    }
  }, 120_000);

  it('lets the lease of a replica whose main thread stays silent run out', async () => {
    const { leases } = await replica('wedged', { leaseMs: 1000, mainSilenceMs: 1000 }, store);
    try {
      // silent for the tolerated 1 s, then a lease more (1 s) with no renewal, and slack for a late last one
      blockMainThread(5000);
      expect(await expiredReplicas()).toContain('wedged');
    } finally {
      await leases.close();
    }
  }, 120_000);

  it('renews from the main thread with a store that cannot renew on its own', async () => {
    const plain: PresenceStore = Object.create(store) as PresenceStore;
    plain.keepLease = undefined;
    const { leases, told } = await replica('plain', { leaseMs: 1000, mainSilenceMs: 60_000 }, plain);
    try {
      // the timer cannot run: the lease lapses, and the next renewal finds it so. Six leases: a renewal sent just
      // before the block may reach a PostgreSQL starved by other work seconds later, and extends the lease from then
      blockMainThread(6000);
      expect(await expiredReplicas()).toContain('plain');
      for (const deadline = Date.now() + 60_000; !told.includes('lease lost');) {
        if (Date.now() > deadline) throw new Error('the lapsed lease was not noticed');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await leases.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);
});
