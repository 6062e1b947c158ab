import type { ExpiredLink, UnclaimedLinks } from '../../../cluster/presence-store.js';
import type { Storage } from '../storage.js';
import { PgStorage } from './pg-storage.js';

// FOR SHARE conflicts with a claim's update of the row: a claim either committed before (its newer generation
// fails the join once the lock is had) or waits until the transaction ends. Locked in device order, as claims
// write (pg-presence.ts), so that a sweep and a claim of many devices never deadlock.
const LOCK_UNCLAIMED = `SELECT p.device FROM outpost_presence p
  JOIN unnest($1::text[], $2::bigint[]) AS link(device, generation)
    ON p.device = link.device AND p.generation = link.generation
  ORDER BY p.device FOR SHARE OF p`;

/**
 * The presence rows (pg-presence.ts) of expired links, locked on the engine's own connection, in its open
 * transaction: the sweep's Offline write commits with the locks it was decided under.
 */
export function pgUnclaimedLinks(storage: Storage): UnclaimedLinks {
  if (!(storage instanceof PgStorage)) throw new Error(`the ${storage.kind} storage keeps no presence record`);
  return {
    lock(links) {
      if (links.length === 0) return [];
      // outside a transaction the locks would end with the statement, before the write they must cover
      if (!storage.inTransaction) throw new Error('presence rows are locked only inside a transaction');
      const { rows } = storage.query(LOCK_UNCLAIMED, [
        links.map((link) => link.device),
        links.map((link) => link.generation),
      ]);
      const unclaimed = new Set(rows.map((row) => row[0]));
      return links.filter((link: ExpiredLink) => unclaimed.has(link.device));
    },
  };
}
