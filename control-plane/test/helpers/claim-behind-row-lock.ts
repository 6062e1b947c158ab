import pg from 'pg';
import type { DeviceClaim, PresenceStore } from '../../src/resources/storage/presence-store.js';
import { until } from './until.js';

export interface ClaimBehindRowLock {
  /** B's claim, stored once the row is let go */
  claiming: Promise<DeviceClaim[]>;
  /** settles once the third connection let the row go (after the next waiter queued behind the claim) */
  letGo: Promise<unknown>;
}

/**
 * Puts replica B's claim of `device` in the queue for its presence row, held by a third connection that lets it go
 * on its own once a second waiter (the transaction under test) queues behind the claim, in one request the server
 * runs to the end: the transaction under test blocks this thread while it waits, so nothing here could let go.
 * Resolves once the claim waits and the third connection watches for the second waiter.
 */
export async function claimBehindRowLock(
  url: string,
  store: PresenceStore,
  device: string,
  closing: (() => Promise<void>)[],
): Promise<ClaimBehindRowLock> {
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    closing.push(() => client.end());
    return client;
  };
  const locker = await connect();
  const watcher = await connect();
  const count = async (sql: string): Promise<number> => {
    const { rows } = await watcher.query<{ n: string }>(sql);
    return Number(rows[0]!.n);
  };
  await locker.query('BEGIN');
  await locker.query('SELECT 1 FROM outpost_presence WHERE device = $1 FOR UPDATE', [device]);
  await store.register('b', 'http://b.invalid:1', 60_000);
  const claiming = store.claim('b', [device]);
  const waiting = 'SELECT count(*) AS n FROM pg_locks WHERE NOT granted';
  await until(async () => (await count(waiting)) === 1, "B's claim waits for the row");
  const letGo = locker.query(`DO $$
      DECLARE deadline timestamptz := clock_timestamp() + interval '100 seconds';
      BEGIN
        WHILE (SELECT count(*) FROM pg_locks WHERE NOT granted) < 2 LOOP
          IF clock_timestamp() > deadline THEN RAISE EXCEPTION 'nothing else waited for the row'; END IF;
          PERFORM pg_sleep(0.01);
        END LOOP;
      END $$; COMMIT`);
  const watching = "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'DO $$%'";
  await until(async () => (await count(watching)) === 1, 'the third connection waits for a second waiter');
  return { claiming, letGo };
}
