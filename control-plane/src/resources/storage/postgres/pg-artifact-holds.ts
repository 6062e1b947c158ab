import pg from 'pg';
import type { ArtifactHoldStore } from '../coordination.js';
import { SCHEMA_LOCK } from './pg-migrations.js';

/**
 * Which artifacts each replica is serving, as rows with a lease (cluster/artifact-hold-leases.ts). Unlike the
 * artifact advisory locks they outlive a lost connection: garbage collection keeps an artifact any row names
 * until that row's lease runs out. Made with IF NOT EXISTS under the schema lock, like the presence tables.
 */
const SCHEMA = `CREATE TABLE IF NOT EXISTS outpost_artifact_holds (
  sha256 text COLLATE "C" NOT NULL,
  holder text COLLATE "C" NOT NULL,
  expires timestamptz NOT NULL,
  PRIMARY KEY (sha256, holder)
)`;

const RECORD = `INSERT INTO outpost_artifact_holds(sha256, holder, expires)
  SELECT sha256, $1, now() + $3 * interval '1 millisecond' FROM unnest($2::text[]) AS sha256
  ON CONFLICT (sha256, holder) DO UPDATE SET expires = EXCLUDED.expires`;

const HELD_ELSEWHERE = `SELECT EXISTS (
  SELECT 1 FROM outpost_artifact_holds WHERE sha256 = $1 AND holder <> $2 AND expires > now()
) AS held`;

/** How long connecting or a statement may take before the caller is told it failed (a download waits on it). */
const TIMEOUT_MS = 5000;

export class PgArtifactHolds implements ArtifactHoldStore {
  private constructor(private readonly pool: pg.Pool) {}

  /**
   * Connects (one connection of its own, apart from the coordination connection: a hold and its release reach
   * the database in the order they were made) and makes the table.
   */
  static async open(url: string, onError: (err: Error) => void): Promise<PgArtifactHolds> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 1,
      connectionTimeoutMillis: TIMEOUT_MS,
      query_timeout: TIMEOUT_MS,
    });
    pool.on('error', onError);
    const client = await pool.connect().catch(async (err: unknown) => {
      await pool.end();
      throw err;
    });
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await client.query(SCHEMA);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      await pool.end();
      throw err;
    }
    client.release();
    return new PgArtifactHolds(pool);
  }

  /** Records (or renews) `holder`'s holds of `sha256s` for `leaseMs` from now. */
  async record(holder: string, sha256s: readonly string[], leaseMs: number): Promise<void> {
    if (sha256s.length === 0) return;
    await this.pool.query(RECORD, [holder, sha256s, Math.round(leaseMs)]);
  }

  async forget(holder: string, sha256: string): Promise<void> {
    await this.pool.query('DELETE FROM outpost_artifact_holds WHERE sha256 = $1 AND holder = $2', [sha256, holder]);
  }

  /** Whether a holder other than `holder` has a live hold of `sha256`; expired holds of the artifact are removed. */
  async heldElsewhere(sha256: string, holder: string): Promise<boolean> {
    // looked at first, removed after: a hold found expired is then expired for the DELETE too (the other order
    // could keep a hold that expired between the two statements while answering that none is live)
    const { rows } = await this.pool.query<{ held: boolean }>(HELD_ELSEWHERE, [sha256, holder]);
    await this.pool.query('DELETE FROM outpost_artifact_holds WHERE sha256 = $1 AND expires <= now()', [sha256]);
    return rows[0]?.held === true;
  }

  /** Removes every hold of `holder` (it stops serving) and closes the pool. */
  async close(holder: string): Promise<void> {
    try {
      await this.pool.query('DELETE FROM outpost_artifact_holds WHERE holder = $1', [holder]);
    } finally {
      await this.pool.end();
    }
  }
}
