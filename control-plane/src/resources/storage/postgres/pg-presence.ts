import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { z } from 'zod';
import type {
  DeviceClaim,
  ExpiredLink,
  HeldLink,
  LeaseKeeper,
  LeaseKeeping,
  LinkHolder,
  PresenceStore,
} from '../presence-store.js';
import { RENEW_LEASE, keepLeaseFromWorker } from './pg-lease-keeper.js';
import { SCHEMA_LOCK } from './pg-migrations.js';

/**
 * Which replica holds each device's link (cluster/presence-leases.ts), in tables of the shared database. Unlogged:
 * presence is only true while the replicas live, so it needs no WAL (a crash of PostgreSQL empties them, and every
 * replica then finds its lease gone and drops its links, which reconnect). A device's link is live while the lease
 * of the replica holding it is: one row per replica is renewed, not one per device. The tables are made with
 * IF NOT EXISTS under the schema lock rather than as a numbered migration because they hold nothing to migrate.
 */
const SCHEMA = [
  `CREATE UNLOGGED TABLE IF NOT EXISTS outpost_replicas (
    replica text COLLATE "C" PRIMARY KEY,
    address text NOT NULL,
    expires timestamptz NOT NULL
  )`,
  `CREATE UNLOGGED TABLE IF NOT EXISTS outpost_presence (
    device text COLLATE "C" PRIMARY KEY,
    replica text COLLATE "C" NOT NULL,
    generation bigint NOT NULL
  )`,
  // the replica a claim took the link from, read from the row it locked: exact when two claims race
  'ALTER TABLE outpost_presence ADD COLUMN IF NOT EXISTS claimed_from text COLLATE "C"',
  'CREATE INDEX IF NOT EXISTS outpost_presence_by_replica ON outpost_presence(replica)',
  'CREATE SEQUENCE IF NOT EXISTS outpost_presence_generation',
  `CREATE TABLE IF NOT EXISTS outpost_cluster_secret (
    only_row boolean PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    secret text NOT NULL
  )`,
];

// The previous holder and the generation are taken once the row is locked, not from the statement's snapshot: of
// two claims racing for one device, the second sees the first as the previous holder, with a newer generation.
// Rows are written in device order, the order the sweep and the release of ended links lock them in
// (pg-unclaimed-links.ts): never a deadlock.
const CLAIM = `INSERT INTO outpost_presence(device, replica, generation)
  SELECT device, $1, nextval('outpost_presence_generation') FROM unnest($2::text[]) AS device ORDER BY device
  ON CONFLICT (device) DO UPDATE SET replica = EXCLUDED.replica,
    generation = nextval('outpost_presence_generation'), claimed_from = outpost_presence.replica
  RETURNING device, generation, claimed_from AS previous`;

const LOCATE = `SELECT r.replica, r.address FROM outpost_presence p JOIN outpost_replicas r ON r.replica = p.replica
  WHERE p.device = $1 AND r.expires > now()`;

// read only: the links are forgotten (FORGET) once their devices are marked Offline, so that a leader dying in
// between leaves them to the next sweep
const EXPIRED = `SELECT p.device, r.replica, p.generation FROM outpost_presence p
  JOIN outpost_replicas r USING (replica) WHERE r.expires <= now()`;

// the rows are locked in device order before they are deleted, as claims and releases lock them: never a deadlock
const FORGET = `WITH dead AS (
    DELETE FROM outpost_replicas WHERE replica = ANY($1::text[]) AND expires <= now() RETURNING replica
  ), held AS (
    SELECT p.device FROM outpost_presence p JOIN dead USING (replica) ORDER BY p.device FOR UPDATE OF p
  )
  DELETE FROM outpost_presence p USING held WHERE p.device = held.device`;

/** The NOTIFY channel on which a replica tells the one it took devices from (payload: TakeoverNotice JSON). */
const TAKEOVER_CHANNEL = 'outpost_presence';
/** NOTIFY payloads must stay below 8000 bytes: takeovers are announced in parts of this size at most. */
const MAX_NOTICE_BYTES = 7000;

const takeoverNoticeSchema = z.object({
  replica: z.string(),
  links: z.array(z.tuple([z.string(), z.number().int()])),
});

const lease = (ms: number): string => `now() + ${Math.round(ms)} * interval '1 millisecond'`;

export class PgPresence implements PresenceStore {
  private listener: pg.Client | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Connects (a few connections: a locate must not wait behind a large claim) and makes the tables. */
  static async open(url: string, onError: (err: Error) => void): Promise<PgPresence> {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pool.on('error', onError);
    const presence = new PgPresence(pool, url, onError);
    try {
      await presence.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
        for (const sql of SCHEMA) await client.query(sql);
      });
    } catch (err) {
      await pool.end();
      throw err;
    }
    return presence;
  }

  async clusterSecret(): Promise<string> {
    const fresh = randomBytes(32).toString('base64url');
    await this.pool.query('INSERT INTO outpost_cluster_secret(secret) VALUES ($1) ON CONFLICT DO NOTHING', [fresh]);
    const { rows } = await this.pool.query<{ secret: string }>('SELECT secret FROM outpost_cluster_secret');
    return rows[0]!.secret;
  }

  async register(replica: string, address: string, leaseMs: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO outpost_replicas(replica, address, expires) VALUES ($1, $2, ${lease(leaseMs)})
       ON CONFLICT (replica) DO UPDATE SET address = EXCLUDED.address, expires = EXCLUDED.expires`,
      [replica, address],
    );
  }

  async renew(replica: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(RENEW_LEASE, [replica, Math.round(leaseMs)]);
    return rowCount === 1;
  }

  keepLease(keeping: LeaseKeeping): LeaseKeeper {
    return keepLeaseFromWorker(this.url, keeping);
  }

  async claim(replica: string, devices: readonly string[]): Promise<DeviceClaim[]> {
    const { rows } = await this.pool.query<{ device: string; generation: string; previous: string | null }>(CLAIM, [
      replica,
      devices,
    ]);
    return rows.map((row) => ({ device: row.device, generation: Number(row.generation), previous: row.previous }));
  }

  async locate(device: string): Promise<LinkHolder | undefined> {
    const { rows } = await this.pool.query<LinkHolder>(LOCATE, [device]);
    return rows[0];
  }

  async expired(): Promise<ExpiredLink[]> {
    const { rows } = await this.pool.query<{ device: string; replica: string; generation: string }>(EXPIRED);
    return rows.map((row) => ({ device: row.device, replica: row.replica, generation: Number(row.generation) }));
  }

  async forget(replicas: readonly string[]): Promise<void> {
    await this.pool.query(FORGET, [replicas]);
  }

  async leave(replica: string): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('DELETE FROM outpost_presence WHERE replica = $1', [replica]);
      await client.query('DELETE FROM outpost_replicas WHERE replica = $1', [replica]);
    });
  }

  async announceTakeovers(from: string, links: readonly HeldLink[]): Promise<void> {
    let part: [string, number][] = [];
    let bytes = 0;
    const send = async (): Promise<void> => {
      if (part.length === 0) return;
      const payload = JSON.stringify({ replica: from, links: part });
      part = [];
      bytes = 0;
      await this.pool.query('SELECT pg_notify($1, $2)', [TAKEOVER_CHANNEL, payload]);
    };
    for (const link of links) {
      const size = Buffer.byteLength(link.device) + 24;
      if (bytes + size > MAX_NOTICE_BYTES) await send();
      part.push([link.device, link.generation]);
      bytes += size;
    }
    await send();
  }

  async listenTakeovers(onTakeover: (from: string, links: HeldLink[]) => void): Promise<void> {
    if (this.listener !== undefined) return;
    const client = new pg.Client({ connectionString: this.url });
    const lost = (err?: Error): void => {
      if (this.listener !== client) return;
      this.listener = undefined; // the next call connects again
      client.end().catch(() => undefined);
      if (err !== undefined) this.onError(err);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel !== TAKEOVER_CHANNEL) return;
      let notice: z.infer<typeof takeoverNoticeSchema>;
      try {
        notice = takeoverNoticeSchema.parse(JSON.parse(message.payload ?? ''));
      } catch (err) {
        this.onError(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      onTakeover(
        notice.replica,
        notice.links.map(([device, generation]) => ({ device, generation })),
      );
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${TAKEOVER_CHANNEL}`);
    } catch (err) {
      lost();
      throw err;
    }
  }

  /** Ends the connections; a second call (or one while the first runs) waits for the same end. */
  close(): Promise<void> {
    this.closing ??= this.end();
    return this.closing;
  }

  private async end(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async transaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
