import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PresenceLeases } from '../../src/cluster/presence-leases.js';
import { startPresenceSweep } from '../../src/cluster/presence-sweep.js';
import type { PresenceStore } from '../../src/resources/storage/presence-store.js';
import { PgPresence } from '../../src/resources/storage/postgres/pg-presence.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { replicaDevices } from '../helpers/replica-devices.js';
import type { ReplicaDevices } from '../helpers/replica-devices.js';
import { until } from '../helpers/until.js';

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`presence leases test skipped: ${missing}; CI=true requires PostgreSQL`);

describe.skipIf(skipped)('presence leases of replicas on one PostgreSQL database [postgres]', () => {
  let cluster: PostgresCluster;
  const closing: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  const errors: unknown[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch((err: unknown) => errors.push(err));
    cluster?.stop();
    expect(errors).toEqual([]);
  });

  const openStore = async (url: string): Promise<PgPresence> => {
    const store = await PgPresence.open(url, (err) => errors.push(err));
    closing.push(() => store.close());
    return store;
  };

  /** The replica's engine on the database at `url` (its release of ended links marks them Offline there). */
  const ownDevices = (url: string, id: string): ReplicaDevices => {
    const own = replicaDevices(url, id, (err) => errors.push(err));
    closing.push(() => Promise.resolve(own.close()));
    return own;
  };

  /** A replica's leases on `store` (the database at `url`), recording what it is told; its claims are counted. */
  const replica = async (url: string, store: PresenceStore, id: string) => {
    const takenOver: string[] = [];
    let claimStatements = 0;
    const counting: PresenceStore = Object.create(store) as PresenceStore;
    counting.claim = (...args) => {
      claimStatements++;
      return store.claim(...args);
    };
    const own = ownDevices(url, id);
    const leases = new PresenceLeases({
      store: counting,
      replica: id,
      leaseMs: 60_000,
      renewEveryMs: 30_000,
      releaseEnded: (links) => own.releaseEnded(links),
      onTakenOver: (device) => takenOver.push(device),
      onLeaseLost: () => takenOver.push('*'),
      onError: (err) => errors.push(err),
    });
    await leases.start(`http://${id}.invalid:1`);
    closing.push(() => leases.close());
    return { leases, takenOver, releases: own.releases, claimStatements: () => claimStatements };
  };

  it('claims the links opened in one turn in one statement; the others find the device there', async () => {
    const url = cluster.createDatabase();
    const store = await openStore(url);
    const a = await replica(url, store, 'a');
    for (let i = 0; i < 500; i++) a.leases.connected(`d-${i}`, () => {});
    await until(async () => (await store.locate('d-499')) !== undefined, 'the claims are stored');
    expect(a.claimStatements()).toBe(1);
    expect(await store.locate('d-0')).toEqual({ replica: 'a', address: 'http://a.invalid:1' });
    expect(await store.locate('never-connected')).toBeUndefined();
  });

  it('newest connection wins: the older holder is told and drops it, and only the newest end marks Offline', async () => {
    const url = cluster.createDatabase();
    const store = await openStore(url);
    const a = await replica(url, store, 'a');
    const b = await replica(url, store, 'b');
    a.leases.connected('moving', () => {});
    await until(async () => (await store.locate('moving'))?.replica === 'a', 'A holds it');
    b.leases.connected('moving', () => {});
    await until(() => a.takenOver.includes('moving'), 'A is told (NOTIFY)');
    expect((await store.locate('moving'))?.replica).toBe('b');

    const neverClaimed: string[] = [];
    a.leases.disconnected('moving', () => neverClaimed.push('by a'));
    b.leases.disconnected('moving', () => neverClaimed.push('by b'));
    await until(() => b.releases.length > 0, 'the newest link ends');
    expect(b.releases).toEqual([['moving']]);
    expect(a.releases).toEqual([]);
    expect(neverClaimed).toEqual([]);
    expect(await store.locate('moving')).toBeUndefined();
  });

  it('of two claims racing for one device, the later one tells the earlier, which drops its link', async () => {
    const url = cluster.createDatabase();
    const store = await openStore(url);
    const x = await replica(url, store, 'x');
    const a = await replica(url, store, 'a');
    const b = await replica(url, store, 'b');
    x.leases.connected('raced', () => {});
    await until(async () => (await store.locate('raced'))?.replica === 'x', 'X holds it');
    // both claims start (and read their snapshot) while the row is locked, then go one after the other
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    closing.push(() => locker.end());
    await locker.query('BEGIN');
    await locker.query("SELECT 1 FROM outpost_presence WHERE device = 'raced' FOR UPDATE");
    a.leases.connected('raced', () => {});
    b.leases.connected('raced', () => {});
    await until(async () => {
      const { rows } = await locker.query<{ waiting: string }>(
        // the second waiter may still show its previous statement: only claims lock rows here
        "SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      return Number(rows[0]!.waiting) === 2;
    }, 'both claims wait for the row');
    await locker.query('COMMIT');

    await until(() => x.takenOver.includes('raced'), 'X is told');
    await until(() => a.takenOver.includes('raced') || b.takenOver.includes('raced'), 'the earlier claim is told');
    const winner = (await store.locate('raced'))?.replica;
    const [loser, kept] = winner === 'a' ? [b, a] : [a, b];
    expect(loser.takenOver).toEqual(['raced']);
    expect(kept.takenOver).toEqual([]);
  }, 120_000);

  it('a takeover told before the answer to its own claim still drops the older link', async () => {
    const url = cluster.createDatabase();
    const store = await openStore(url);
    const told = new Set<string>();
    // B's notice overtakes A's answer: A's claim answers only once A has been told of B's
    const overtaken: PresenceStore = Object.create(store) as PresenceStore;
    overtaken.listenTakeovers = (onTakeover) =>
      store.listenTakeovers((from, links) => {
        onTakeover(from, links);
        if (from === 'a') for (const link of links) told.add(link.device);
      });
    overtaken.claim = async (...args) => {
      const claimed = await store.claim(...args);
      await until(() => told.has('early'), 'A is told of the newer claim');
      return claimed;
    };
    const takenOver: string[] = [];
    const own = ownDevices(url, 'a');
    const a = new PresenceLeases({
      store: overtaken,
      replica: 'a',
      leaseMs: 60_000,
      renewEveryMs: 30_000,
      releaseEnded: (links) => own.releaseEnded(links),
      onTakenOver: (device) => takenOver.push(device),
      onLeaseLost: () => takenOver.push('*'),
      onError: (err) => errors.push(err),
    });
    await a.start('http://a.invalid:1');
    closing.push(() => a.close());
    a.connected('early', () => {});
    await until(async () => (await store.locate('early'))?.replica === 'a', 'A has claimed it');
    await store.register('b', 'http://b.invalid:1', 60_000);
    const claimed = await store.claim('b', ['early']);
    expect(claimed.map((claim) => claim.previous)).toEqual(['a']);
    await store.announceTakeovers('a', claimed);
    await until(() => takenOver.includes('early'), 'A drops its link once its claim answers');
    expect(takenOver).toEqual(['early']);
  }, 120_000);

  it('a link that ends while its claim is out is released once the claim is stored', async () => {
    const url = cluster.createDatabase();
    const store = await openStore(url);
    const a = await replica(url, store, 'a');
    const neverClaimed: string[] = [];
    a.leases.connected('brief', () => {});
    await new Promise((resolve) => setImmediate(resolve)); // the claim is on its way
    a.leases.disconnected('brief', () => neverClaimed.push('brief'));
    await until(() => a.releases.length > 0, 'the link is released');
    expect(a.releases).toEqual([['brief']]);
    expect(neverClaimed).toEqual([]);
    expect(await store.locate('brief')).toBeUndefined();
  });

  it('the sweep takes the devices of a replica whose lease expired, not those claimed elsewhere since', async () => {
    const store = await openStore(cluster.createDatabase());
    await store.register('dead', 'http://dead.invalid:1', 1);
    await store.claim('dead', ['left-behind', 'moved-on']);
    await store.register('alive', 'http://alive.invalid:1', 60_000);
    await store.claim('alive', ['moved-on']);
    await until(async () => (await store.locate('left-behind')) === undefined, 'the lease expires');
    const expired = await store.expired();
    expect(expired.map((e) => [e.device, e.replica])).toEqual([['left-behind', 'dead']]);
    expect(await store.renew('dead', 60_000)).toBe(false);
    expect(await store.renew('alive', 60_000)).toBe(true);
    await store.forget(['dead']);
    expect(await store.expired()).toEqual([]);
    expect(await store.renew('dead', 60_000)).toBe(false);
  });

  it('a sweep whose Offline write did not happen (its replica died) is done by the next sweep', async () => {
    const store = await openStore(cluster.createDatabase());
    await store.register('dead', 'http://dead.invalid:1', 1);
    await store.claim('dead', ['stranded']);
    await until(async () => (await store.locate('stranded')) === undefined, 'the lease expires');
    const marked: string[][] = [];
    let attempts = 0;
    const stop = startPresenceSweep({
      store,
      everyMs: 20,
      markOffline: (expired) => {
        // the first sweeping replica dies before its Offline write
        if (++attempts === 1) throw new Error('the leader died');
        marked.push(expired.map((link) => link.device));
      },
      onError: () => {},
    });
    try {
      await until(() => marked.length > 0, 'the next sweep marks the device Offline');
    } finally {
      stop();
    }
    expect(marked[0]).toEqual(['stranded']);
    await until(async () => (await store.expired()).length === 0, 'the dead replica is forgotten');
  }, 120_000);
});
