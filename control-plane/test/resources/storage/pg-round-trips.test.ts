import { describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { where } from '../../../src/resources/resource-query.js';
import type { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';
import { widgetDefinition } from '../../helpers/widgets.js';

/**
 * Every statement the engine waits for on PostgreSQL is a round trip that blocks the control plane, so what a
 * unit of work costs is counted in round trips: a transaction's writes go out together, whatever their number.
 */
const PARENT = 'projects/p1/regions/eu';
const ROWS = 200;
const TITLE = 'PostgreSQL round trips per unit of work';

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();
  const open = (): { storage: PgStorage; engine: ResourceEngine } => {
    const storage = postgres.open(postgres.createDatabase());
    return { storage, engine: new ResourceEngine(storage) };
  };
  const name = (i: number): string => `${PARENT}/widgets/w${i}`;

  it('writes the status of many rows in two round trips: their read (with the lock of the log head), and the commit', () => {
    const { storage, engine } = open();
    const widgets = engine.register(widgetDefinition);
    engine.transaction(() => {
      for (let i = 0; i < ROWS; i++) widgets.put({ name: name(i), metadata: { labels: { zone: 'a' } } });
    });
    const head = engine.log.head();
    const before = storage.roundTrips;
    widgets.patchAll(
      Array.from({ length: ROWS }, (_, i) => [
        name(i),
        (doc) => ({
          ...doc,
          metadata: { ...(doc['metadata'] as object), labels: { zone: i % 2 === 0 ? 'b' : 'a' } },
          status: { state: 'BUSY', counter: i },
        }),
      ]),
    );
    expect(storage.roundTrips - before).toBe(2);
    expect(engine.log.head()).toBe(head + ROWS);
    expect(widgets.find(name(7))?.['status']).toEqual({ state: 'BUSY', counter: 7 });
    // the columns and the labels' side table were written with the documents
    expect(widgets.list({ where: [where.equals('status.counter', 150)] }).map((w) => w.name)).toEqual([name(150)]);
    expect(widgets.list({ where: [where.contains('metadata.labels', 'zone:b')] })).toHaveLength(ROWS / 2);
  });

  it('creates rows at one round trip each (reading the name), their inserts going out with the next', () => {
    const { storage, engine } = open();
    const widgets = engine.register(widgetDefinition);
    widgets.put({ name: name(0) }); // the first ids are reserved
    const before = storage.roundTrips;
    engine.transaction(() => {
      for (let i = 1; i <= 100; i++) widgets.put({ name: name(i), spec: { size: i } });
    });
    // one read per name (the first with the lock of the log head), the commit
    expect(storage.roundTrips - before).toBe(101);
    expect(widgets.list({ where: [where.equals('spec.size', 42)] }).map((w) => w.name)).toEqual([name(42)]);
  });

  it("locks the log head before the transaction's first read, in the same round trip", () => {
    const { storage, engine } = open();
    const observer = postgres.open(storage.url);
    const widgets = engine.register(widgetDefinition);
    widgets.put({ name: name(0), spec: { size: 1 } });
    const headLocks = (): number =>
      Number(
        observer.query(
          "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'change_log_head' AND l.mode = 'RowShareLock'",
        ).rows[0]?.[0],
      );
    const before = storage.roundTrips;
    const seen = engine.transaction(() => {
      const found = widgets.find(name(0));
      return { found, trips: storage.roundTrips - before, locks: headLocks() };
    });
    // the read went out after the lock: it saw every write committed before it, as a writer needs
    expect(seen).toEqual({ found: expect.objectContaining({ name: name(0) }), trips: 1, locks: 1 });
    expect(headLocks()).toBe(0);
  });

  it('writes two edits of one row in one transaction in their order', () => {
    const { engine } = open();
    const widgets = engine.register(widgetDefinition);
    widgets.put({ name: name(0) });
    widgets.patchAll([
      [name(0), (doc) => ({ ...doc, status: { counter: 1 } })],
      [name(0), (doc) => ({ ...doc, status: { ...(doc['status'] as object), state: 'IDLE' } })],
    ]);
    expect(widgets.find(name(0))?.['status']).toEqual({ counter: 1, state: 'IDLE' });
    expect(widgets.list({ where: [where.equals('status.counter', 1)] })).toHaveLength(1);
  });

  it('costs a storage transaction that runs nothing no round trip, and one that only writes one', () => {
    const { storage, engine } = open();
    const widgets = engine.register(widgetDefinition);
    const row = engine.transaction(() => {
      widgets.put({ name: name(0) });
      return widgets.table.find(name(0))!;
    });
    const before = storage.roundTrips;
    storage.transaction(() => {});
    expect(storage.roundTrips - before).toBe(0);
    storage.transaction(() => widgets.table.update(row.id, { ...row.doc, displayName: 'renamed' }));
    expect(storage.roundTrips - before).toBe(1);
    expect(widgets.find(name(0))?.['displayName']).toBe('renamed');
  });
});
