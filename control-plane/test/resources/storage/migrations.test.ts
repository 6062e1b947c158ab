import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/resources/storage/sqlite/open-database.js';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { where } from '../../../src/resources/resource-query.js';
import { SQLITE_MIGRATIONS } from '../../../src/resources/storage/sqlite/sqlite-migrations.js';
import { SqliteStorage } from '../../../src/resources/storage/sqlite/sqlite-storage.js';
import { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import { POSTGRES_MIGRATIONS } from '../../../src/resources/storage/postgres/pg-migrations.js';
import { describeStorages } from '../../helpers/storages.js';
import { tempDatabases } from '../../helpers/temp-databases.js';
import { widgetDefinition } from '../../helpers/widgets.js';

const PARENT = 'projects/p1/regions/eu';
const latest = (migrations: readonly { version: number }[]): number => Math.max(...migrations.map((m) => m.version));

describe('SQLite schema migrations', () => {
  const freshDatabase = tempDatabases('outpost-migrations-');

  it('upgrades a database of the previous schema (version 1, unrecorded) and keeps its data', () => {
    const { db, file } = freshDatabase();
    // what the release before versioned schemas left: today's tables, no change_log_by_plural, user_version 0
    const before = new ResourceEngine(db).register(widgetDefinition);
    before.put({ name: `${PARENT}/widgets/kept`, spec: { color: 'red', size: 3 } });
    before.put({ name: `${PARENT}/widgets/kept`, spec: { color: 'blue', size: 3 } });
    db.exec('DROP INDEX change_log_by_plural');
    db.pragma('user_version = 0');
    db.close();

    const reopened = openDatabase(file);
    const engine = new ResourceEngine(reopened);
    const widgets = engine.register(widgetDefinition);
    expect(reopened.pragma('user_version', { simple: true })).toBe(latest(SQLITE_MIGRATIONS));
    const indexes = reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[];
    expect(indexes.map((i) => i.name)).toContain('change_log_by_plural');
    expect((widgets.find(`${PARENT}/widgets/kept`)!['spec'] as { color: string }).color).toBe('blue');
    expect(engine.log.read('widgets', 0, 10).map((c) => [c.seq, c.op])).toEqual([
      [1, 'create'],
      [2, 'update'],
    ]);
    widgets.put({ name: `${PARENT}/widgets/new`, spec: { color: 'red' } });
    expect(engine.log.head()).toBe(3);
    reopened.close();
  });

  it('names the rows of the side tables of the previous schema (version 3) and lists by label from them', () => {
    const { db, file } = freshDatabase();
    const name = (i: number): string => `${PARENT}/widgets/w${String(i).padStart(2, '0')}`;
    const before = new ResourceEngine(db).register(widgetDefinition);
    for (let i = 0; i < 30; i++) before.put({ name: name(i), metadata: { labels: { zone: `z${i % 3}` } } });
    // the side table as version 3 left it: no names, so no index in their order
    db.exec('DROP INDEX r_widgets_values_in_name_order');
    db.exec('ALTER TABLE r_widgets_values DROP COLUMN row_name');
    db.pragma('user_version = 3');
    db.close();

    const reopened = openDatabase(file);
    const widgets = new ResourceEngine(reopened).register(widgetDefinition);
    expect(reopened.pragma('user_version', { simple: true })).toBe(latest(SQLITE_MIGRATIONS));
    const unnamed = reopened.prepare("SELECT count(*) FROM r_widgets_values WHERE row_name = ''").pluck().get();
    expect(unnamed).toBe(0);
    widgets.put({ name: name(30), metadata: { labels: { zone: 'z1' } } });
    const listed = widgets.list({ where: [where.parent(PARENT), where.contains('metadata.labels', 'zone:z1')] });
    expect(listed.map((w) => w.name)).toEqual([...Array.from({ length: 10 }, (_, k) => name(1 + 3 * k)), name(30)]);
    const indexes = reopened
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'r_widgets_values'")
      .pluck()
      .all();
    expect(indexes).toContain('r_widgets_values_in_name_order');
    reopened.close();
  });

  it('refuses a database of a newer schema than it knows', () => {
    const { db } = freshDatabase();
    db.pragma(`user_version = ${latest(SQLITE_MIGRATIONS) + 1}`);
    expect(() => new SqliteStorage(db)).toThrow(/newer than this control plane knows/);
  });
});

describeStorages('schema migrations on every store', (fresh, kind) => {
  it('record the newest version once, and opening again changes nothing', () => {
    const storage = fresh();
    const engine = new ResourceEngine(storage);
    engine.register(widgetDefinition).put({ name: `${PARENT}/widgets/w1`, spec: { size: 1 } });
    if (storage instanceof PgStorage) {
      const versions = storage.query('SELECT version FROM outpost_schema ORDER BY version').rows.flat();
      expect(versions).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
      const again = new PgStorage(storage.url);
      try {
        expect(again.query('SELECT count(*) FROM outpost_schema').rows[0]![0]).toBe(versions.length);
        const widgets = new ResourceEngine(again).register(widgetDefinition);
        expect(widgets.find(`${PARENT}/widgets/w1`)).toBeDefined();
        again.query('INSERT INTO outpost_schema(version) VALUES (?)', [latest(POSTGRES_MIGRATIONS) + 1]);
        expect(() => new PgStorage(storage.url)).toThrow(/newer than this control plane knows/);
      } finally {
        again.close();
      }
    } else {
      expect(kind).toBe('sqlite');
      expect((storage as SqliteStorage).db.pragma('user_version', { simple: true })).toBe(latest(SQLITE_MIGRATIONS));
    }
  });
});

describeStorages('reopening a store', (fresh) => {
  it('finds the tables, columns and indexes of camelCase kinds and paths as it left them', () => {
    const storage = fresh();
    const boxes = { ...widgetDefinition, plural: 'widgetBoxes' };
    const first = new ResourceEngine(storage).register(boxes);
    first.put({ name: `${PARENT}/widgets/w1`, displayName: 'kept', spec: { size: 1 } });
    const again =
      storage instanceof PgStorage ? new PgStorage(storage.url) : new SqliteStorage((storage as SqliteStorage).db);
    try {
      const second = new ResourceEngine(again).register(boxes);
      expect(second.table.addedPaths).toEqual([]);
      expect(second.list({ where: [] }).map((doc) => doc['displayName'])).toEqual(['kept']);
    } finally {
      if (again instanceof PgStorage) again.close();
    }
  });
});
