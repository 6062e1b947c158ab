import pg from 'pg';
import type { CoordinationSession } from '../coordination.js';

/**
 * One asynchronous connection of a control-plane replica to the PostgreSQL database the replicas share, for
 * coordinating them (control-plane/src/cluster): LISTEN/NOTIFY wake-ups and session advisory locks. Separate
 * from the engine's synchronous connection, whose statements must not wait on another replica. A session lock
 * is held until `unlock` or until this connection ends (the server releases it when the process dies).
 */
export class PgCoordination implements CoordinationSession {
  private ended = false;
  /** the client runs one query at a time: each waits for the one before */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly onEnd: (err: Error | undefined) => void,
  ) {
    client.on('error', (err) => this.end(err));
    client.on('end', () => this.end(undefined));
  }

  /** Connects; `onEnd` is told once when the connection is lost or closed (every lock it held is gone then). */
  static async connect(url: string, onEnd: (err: Error | undefined) => void): Promise<PgCoordination> {
    // a host that crashed or was cut off never closes its sessions: keepalives on both ends (and the server's
    // tcp_user_timeout for unacknowledged data) end them, and free their locks, within about half a minute
    const client = new pg.Client({
      connectionString: url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      options: SESSION_KEEPALIVES,
    });
    await client.connect();
    return new PgCoordination(client, onEnd);
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Calls `onPayload` with each notification on `channel` (channel: letters, digits and underscores). */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<void> {
    this.client.on('notification', (message) => {
      if (message.channel === channel) onPayload(message.payload ?? '');
    });
    await this.query(`LISTEN ${identifier(channel)}`);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /** Takes the session advisory lock `key` unless another session holds it; whether this one holds it now. */
  async tryLock(key: number): Promise<boolean> {
    const rows = await this.query('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    return rows[0]?.['locked'] === true;
  }

  /** Takes the shared session advisory lock `key` (any number of sessions hold it together). */
  async lockShared(key: number): Promise<void> {
    await this.query('SELECT pg_advisory_lock_shared($1)', [key]);
  }

  /**
   * How many sessions of this database hold the advisory lock `key` (a key below 2^32), this one included.
   * Advisory locks are cluster-wide: pg_locks also lists those the servers of other databases hold.
   */
  async holders(key: number): Promise<number> {
    const rows = await this.query(
      `SELECT count(*) AS holders FROM pg_locks
        WHERE locktype = 'advisory' AND classid = 0 AND objid = $1::bigint::oid AND objsubid = 1 AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [key],
    );
    return Number(rows[0]?.['holders'] ?? 0);
  }

  /** Runs a statement, so that the others see this session active (`endSilentHolder` reads when it started the last). */
  async touch(): Promise<void> {
    await this.query('SELECT 1');
  }

  /**
   * Ends the other session of this database that holds the session advisory lock `key` (a key below 2^32) when it
   * started no statement for `silentMs` (its process is frozen, or its host gone); whether one was ended. Its
   * locks are released once its backend exits.
   */
  async endSilentHolder(key: number, silentMs: number): Promise<boolean> {
    const rows = await this.query(
      `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1::bigint::oid AND l.objsubid = 1 AND l.granted
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.pid <> pg_backend_pid() AND a.query_start < clock_timestamp() - $2 * interval '1 millisecond'`,
      [key, silentMs],
    );
    return rows.some((row) => row['ended'] === true);
  }

  async unlock(key: number): Promise<void> {
    await this.query('SELECT pg_advisory_unlock($1)', [key]);
  }

  /**
   * Takes the session advisory lock of the two-part key (`space`, `key`; each a 32-bit integer), shared or
   * exclusive, unless another session holds it in a way that conflicts; whether this one holds it now.
   */
  async tryLockPair(space: number, key: number, shared: boolean): Promise<boolean> {
    const fn = shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
    const rows = await this.query(`SELECT ${fn}($1::int4, $2::int4) AS locked`, [space, key]);
    return rows[0]?.['locked'] === true;
  }

  async unlockPair(space: number, key: number, shared: boolean): Promise<void> {
    const fn = shared ? 'pg_advisory_unlock_shared' : 'pg_advisory_unlock';
    await this.query(`SELECT ${fn}($1::int4, $2::int4)`, [space, key]);
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.client.end().catch(() => undefined);
    this.onEnd(undefined);
  }

  private query(sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
    const run = this.queue.then(() => this.client.query<Record<string, unknown>>(sql, [...params]));
    this.queue = run.catch(() => undefined);
    return run.then((result) => result.rows);
  }

  private end(err: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.client.end().catch(() => undefined);
    this.onEnd(err);
  }
}

/** The server's side of the keepalives (seconds; tcp_user_timeout in ms): ignored on a Unix socket. */
const SESSION_KEEPALIVES =
  '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3 -c tcp_user_timeout=30000';

function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return name;
}
