import type { ExpiredLink, HeldLink, UnclaimedLinks } from '../presence-store.js';
import type { PgStorage } from './pg-storage.js';

// FOR SHARE conflicts with a claim's update of the row: a claim either committed before (its newer generation
// fails the join once the lock is had) or waits until the transaction ends. Locked in device order, as claims
// write (pg-presence.ts), so that a sweep and a claim of many devices never deadlock.
const LOCK_UNCLAIMED = `SELECT p.device FROM outpost_presence p
  JOIN unnest($1::text[], $2::bigint[]) AS link(device, generation)
    ON p.device = link.device AND p.generation = link.generation
  ORDER BY p.device FOR SHARE OF p`;

// The same check for a replica's own ended links, FOR UPDATE since the rows are then deleted (in device order
// too: the DELETE alone would lock them in whatever order its plan reads them). A claim racing it waits for the
// commit, then inserts the device anew.
const TAKE_HELD = `WITH held AS (
    SELECT p.device FROM outpost_presence p
      JOIN unnest($2::text[], $3::bigint[]) AS link(device, generation)
        ON p.device = link.device AND p.generation = link.generation
      WHERE p.replica = $1
      ORDER BY p.device FOR UPDATE OF p
  )
  DELETE FROM outpost_presence p USING held WHERE p.device = held.device RETURNING p.device`;

/**
 * The presence rows (pg-presence.ts) of links, locked on the engine's own connection, in its open transaction:
 * the Offline write commits with the locks it was decided under.
 */
export function pgUnclaimedLinks(storage: PgStorage): UnclaimedLinks {
  const devicesLocked = (sql: string, params: readonly unknown[]): Set<unknown> => {
    // outside a transaction the locks would end with the statement, before the write they must cover
    if (!storage.inTransaction) throw new Error('presence rows are locked only inside a transaction');
    return new Set(storage.query(sql, params).rows.map((row) => row[0]));
  };
  const devicesOf = (links: readonly HeldLink[]): string[] => links.map((link) => link.device);
  const generationsOf = (links: readonly HeldLink[]): number[] => links.map((link) => link.generation);
  return {
    lock(links) {
      if (links.length === 0) return [];
      const unclaimed = devicesLocked(LOCK_UNCLAIMED, [devicesOf(links), generationsOf(links)]);
      return links.filter((link: ExpiredLink) => unclaimed.has(link.device));
    },
    take(replica, links) {
      if (links.length === 0) return [];
      const held = devicesLocked(TAKE_HELD, [replica, devicesOf(links), generationsOf(links)]);
      return links.filter((link) => held.has(link.device)).map((link) => link.device);
    },
  };
}
