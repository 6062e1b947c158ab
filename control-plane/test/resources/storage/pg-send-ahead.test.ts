import { describe, expect, it } from 'vitest';
import { ROWS_SENT_AHEAD } from '../../../src/resources/storage/postgres/pg-storage.js';
import type { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import type { RowShape } from '../../../src/resources/storage/postgres/pg-write-queue.js';
import { SyncPostgres } from '../../../src/resources/storage/postgres/sync-postgres.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';

/**
 * Many row writes queued in a transaction go out ahead, not waited for, so PostgreSQL writes them while the
 * caller prepares the next. Nothing else changes: they stay in the transaction, in order, and a failure among
 * them is reported (as their shape maps it) by the next statement waited for, inside its savepoint.
 */
const TITLE = 'PostgreSQL writes sent ahead';
/** How long a condition on the server may take to show: generous, a loaded CI machine is slow. */
const SHOWS_WITHIN_MS = 60_000;

class DuplicateItem extends Error {}

/** Inserts items by id; a duplicate id is a DuplicateItem. Each write also moves a sequence, seen at once from outside. */
const items: RowShape<number> = {
  statements: (ids) => [
    { sql: 'INSERT INTO items(id) SELECT * FROM unnest(?::int[])', params: [ids] },
    { sql: "SELECT setval('written', ?)", params: [Math.max(...ids)] },
  ],
  mapError: (err) => (err.code === '23505' ? new DuplicateItem(err.message) : err),
};

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();
  const open = (): { storage: PgStorage; url: string } => {
    const url = postgres.createDatabase();
    const storage = postgres.open(url);
    storage.run([{ sql: 'CREATE TABLE items(id int PRIMARY KEY)' }, { sql: 'CREATE SEQUENCE written' }]);
    return { storage, url };
  };
  const count = (storage: PgStorage): number => Number(storage.query('SELECT count(*) FROM items').rows[0]![0]);

  it('sends queued row writes ahead once they are many, before the commit, without a round trip waited for', () => {
    const { storage, url } = open();
    const outside = new SyncPostgres(url);
    try {
      const before = storage.roundTrips;
      const seenOutside = storage.transaction(() => {
        const answer = storage.deferRead({ sql: 'SELECT 42' });
        for (let id = 1; id <= ROWS_SENT_AHEAD; id++) storage.deferRow(items, id, id);
        expect(storage.roundTrips - before).toBe(0);
        // a sequence moves outside transactions: another connection sees the writes reach the server
        const seen = waitFor(
          () => Number(outside.query('SELECT last_value FROM written').rows[0]![0]) === ROWS_SENT_AHEAD,
        );
        expect(answer()?.rows).toEqual([[42]]);
        return seen;
      });
      expect(seenOutside).toBe(true);
      expect(storage.roundTrips - before).toBe(2); // the read's answer, the commit
      expect(count(storage)).toBe(ROWS_SENT_AHEAD);
    } finally {
      outside.close();
    }
  });

  it('reports a failed write sent ahead as its shape maps it, at the next statement waited for, and rolls back', () => {
    const { storage } = open();
    storage.transaction(() => storage.deferRow(items, 5, 5));
    const writeAll = (): void =>
      storage.transaction(() => {
        for (let id = 1000; id < 1000 + 2 * ROWS_SENT_AHEAD; id++) storage.deferRow(items, id, id);
        storage.deferRow(items, 5, 5); // a duplicate, sent ahead with the writes after it
        for (let id = 1; id <= ROWS_SENT_AHEAD; id++) storage.deferRow(items, 10_000 + id, 10_000 + id);
        storage.query('SELECT 1');
        throw new Error('not reached: the duplicate fails the statement waited for');
      });
    expect(writeAll).toThrow(DuplicateItem);
    expect(count(storage)).toBe(1);
    expect(storage.inTransaction).toBe(false);
  });

  it('undoes a failed write sent ahead within its savepoint alone', () => {
    const { storage } = open();
    storage.transaction(() => {
      storage.deferRow(items, 1, 1);
      expect(() =>
        storage.savepoint(() => {
          for (let id = 100; id < 100 + ROWS_SENT_AHEAD; id++) storage.deferRow(items, id, id);
          storage.deferRow(items, 1, 1); // the duplicate
          for (let id = 5000; id < 5000 + ROWS_SENT_AHEAD; id++) storage.deferRow(items, id, id);
        }),
      ).toThrow(DuplicateItem);
      storage.deferRow(items, 2, 2);
    });
    expect(storage.query('SELECT id FROM items ORDER BY id').rows).toEqual([[1], [2]]);
  });
});

/** Whether `condition` came true within SHOWS_WITHIN_MS, asking again and again (this thread must not yield). */
function waitFor(condition: () => boolean): boolean {
  const deadline = Date.now() + SHOWS_WITHIN_MS;
  while (Date.now() < deadline) {
    if (condition()) return true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  return false;
}
