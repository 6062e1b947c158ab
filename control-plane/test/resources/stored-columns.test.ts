import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/resources/storage/sqlite/open-database.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import { tempDatabases } from '../helpers/temp-databases.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * The filter columns are ordinary columns the engine writes with each document (only those that change):
 * after any sequence of writes they hold exactly json_extract(doc, path), and the side table holds the
 * labels; a table of an earlier version, with generated columns, is rebuilt with its rows and ids. SQLite only: it
 * compares SQLite's own columns with json_extract and migrates SQLite's earlier tables (the engine's group commit,
 * on both stores: group-commit.test.ts).
 */
const freshDatabase = tempDatabases('outpost-columns-');

const freshDb = (): Db => freshDatabase().db;

const PARENT = 'projects/p1/regions/eu';
const SCALARS = widgetDefinition.filterSchema.fields.filter(
  (f) => f.path !== 'name' && f.type !== 'labels' && f.type !== 'stringList',
);

/** Rows whose column disagrees with the document, and side-table rows that disagree with the labels. */
function drift(db: Db): { columns: unknown[]; labels: unknown[] } {
  const columns = SCALARS.flatMap((field) => {
    const column = 'f_' + field.path.replace(/[^A-Za-z0-9]/g, '_');
    const path =
      '$.' +
      field.path
        .split('.')
        .map((s) => `"${s}"`)
        .join('.');
    return db
      .prepare(`SELECT name, ? AS field FROM r_widgets WHERE ${column} IS NOT json_extract(doc, ?)`)
      .all(field.path, path);
  });
  const labels = db
    .prepare(
      `SELECT name FROM r_widgets w WHERE
         (SELECT group_concat(value, ',') FROM (SELECT value FROM r_widgets_values v
            WHERE v.row_id = w.id AND v.path = 'metadata.labels' ORDER BY value)) IS NOT
         (SELECT group_concat(value, ',') FROM (
            SELECT key AS value FROM json_each(w.doc, '$.metadata.labels')
            UNION SELECT key || ':' || value FROM json_each(w.doc, '$.metadata.labels') WHERE type = 'text'
            ORDER BY value))`,
    )
    .all();
  return { columns, labels };
}

/** The rows of the widgets' table whose columns meet `sql` (read on the engine's own connection). */
const count = (db: Db, sql: string, params: unknown[] = []): number =>
  (db.prepare(`SELECT COUNT(*) AS n FROM r_widgets WHERE ${sql}`).get(...params) as { n: number }).n;

describe('filter columns', () => {
  it('follow every kind of write, and a rolled-back one leaves them as they were', () => {
    const db = freshDb();
    const engine = new ResourceEngine(db);
    const widgets = engine.register(widgetDefinition);
    const name = (i: number): string => `${PARENT}/widgets/w${i}`;
    for (let i = 0; i < 6; i++) {
      widgets.create({
        parent: PARENT,
        resource: { name: name(i), spec: { color: i % 2 ? 'red' : 'blue', size: i }, metadata: { labels: { a: 'x' } } },
      });
    }
    widgets.update({ name: name(0), resource: { spec: { color: 'green' } }, updateMask: 'spec.color' });
    widgets.update({ name: name(1), resource: { displayName: 'One', metadata: { labels: { b: 'y' } } } });
    widgets.put({ name: name(2), spec: { size: 20, enabled: true }, status: { state: 'BUSY', counter: 2 } });
    widgets.patch(name(3), (doc) => ({ ...doc, status: { state: 'IDLE' } }));
    widgets.patchAll([[name(4), (doc) => ({ ...doc, spec: { owner: 'projects/p9', network: { dhcp: true } } })]]);
    const rows = widgets.table.findMany([name(5)]);
    widgets.mergeRows([...rows.values()].map((row) => [row, { displayName: 'Five' }] as const));
    expect(() =>
      engine.transaction(() => {
        widgets.patch(name(5), (doc) => ({ ...doc, spec: { color: 'gone' } }));
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(drift(db)).toEqual({ columns: [], labels: [] });
    expect(count(db, 'f_spec_color = ?', ['green'])).toBe(1);
    expect(count(db, 'f_spec_color = ?', ['gone'])).toBe(0);
    expect(count(db, 'f_status_state = ?', ['BUSY'])).toBe(1);
    expect(count(db, 'f_spec_enabled = 1')).toBe(1);
    expect(count(db, 'f_displayName = ?', ['Five'])).toBe(1);
    widgets.remove(name(1));
    // w2 was replaced without labels, w1 is gone: four widgets with a: x
    expect(db.prepare('SELECT COUNT(*) AS n FROM r_widgets_values').get()).toEqual({ n: 2 * 4 });
  });

  it('follow mergeRows, which stamps the generation only for spec members and skips writes that change nothing', () => {
    const db = freshDb();
    const engine = new ResourceEngine(db);
    const widgets = engine.register(widgetDefinition);
    const name = (i: number): string => `${PARENT}/widgets/m${i}`;
    for (let i = 0; i < 3; i++) {
      widgets.create({
        parent: PARENT,
        resource: { name: name(i), spec: { size: i }, metadata: { labels: { a: 'x' } } },
      });
    }
    const merge = (i: number, fields: Record<string, unknown>): void => {
      const row = widgets.table.find(name(i));
      if (row) widgets.mergeRows([[row, fields]]);
    };
    const meta = (i: number) => widgets.find(name(i))?.['metadata'] as { generation: number; resourceVersion: string };
    merge(0, { status: { state: 'BUSY', counter: 7 } });
    expect(meta(0).generation).toBe(1);
    merge(1, { spec: { size: 10, color: 'red' }, displayName: 'One' });
    expect(meta(1).generation).toBe(2);
    const before = { version: meta(2).resourceVersion, head: engine.log.head() };
    merge(2, { spec: { size: 2 } });
    expect({ version: meta(2).resourceVersion, head: engine.log.head() }).toEqual(before);
    expect(() => merge(2, { metadata: { labels: {} } })).toThrow('cannot set "metadata"');
    expect(drift(db)).toEqual({ columns: [], labels: [] });
    expect(count(db, 'f_status_counter = 7')).toBe(1);
    expect(count(db, 'f_spec_color = ?', ['red'])).toBe(1);
    expect(count(db, 'f_displayName = ?', ['One'])).toBe(1);
    expect(count(db, 'f_spec_size = 10')).toBe(1);
  });

  it('a table with generated columns (an earlier version) is rebuilt with its documents and row ids', () => {
    const db = freshDb();
    db.exec(
      `CREATE TABLE r_widgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent TEXT NOT NULL, doc TEXT NOT NULL)`,
    );
    db.exec(`CREATE INDEX r_widgets_by_parent ON r_widgets(parent, name)`);
    db.exec(`CREATE TABLE r_widgets_values (row_id INTEGER NOT NULL, path TEXT NOT NULL, value TEXT NOT NULL)`);
    for (const field of SCALARS) {
      const column = 'f_' + field.path.replace(/[^A-Za-z0-9]/g, '_');
      const path =
        '$.' +
        field.path
          .split('.')
          .map((s) => `"${s}"`)
          .join('.');
      db.exec(`ALTER TABLE r_widgets ADD COLUMN ${column} GENERATED ALWAYS AS (json_extract(doc, '${path}')) VIRTUAL`);
      db.exec(`CREATE INDEX r_widgets_by_${column}_in_parent ON r_widgets(${column}, parent, name)`);
    }
    const insert = db.prepare('INSERT INTO r_widgets(id, name, parent, doc) VALUES (?, ?, ?, ?)');
    const label = db.prepare(`INSERT INTO r_widgets_values(row_id, path, value) VALUES (?, 'metadata.labels', ?)`);
    for (const [id, color] of [
      [7, 'red'],
      [9, 'blue'],
    ] as const) {
      const name = `${PARENT}/widgets/old-${id}`;
      insert.run(
        id,
        name,
        PARENT,
        JSON.stringify({ name, spec: { color, size: id }, metadata: { labels: { k: 'v' } } }),
      );
      label.run(id, 'k');
      label.run(id, 'k:v');
    }

    const engine = new ResourceEngine(db);
    const widgets = engine.register(widgetDefinition);
    const generated = db
      .prepare(`SELECT COUNT(*) AS n FROM pragma_table_xinfo('r_widgets') WHERE hidden IN (2, 3)`)
      .get() as { n: number };
    expect(generated.n).toBe(0);
    expect(widgets.table.find(`${PARENT}/widgets/old-9`)?.id).toBe(9);
    expect(count(db, 'f_spec_color = ?', ['red'])).toBe(1);
    expect(count(db, 'f_spec_size > 8')).toBe(1);
    expect(widgets.count({ where: [where.contains('metadata.labels', 'k:v')] })).toBe(2);
    widgets.patch(`${PARENT}/widgets/old-7`, (doc) => ({ ...doc, spec: { color: 'blue' } }));
    expect(count(db, 'f_spec_color = ?', ['blue'])).toBe(2);
    expect(drift(db)).toEqual({ columns: [], labels: [] });
    const indexes = db.prepare(
      `SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = 'r_widgets'`,
    );
    expect((indexes.get() as { n: number }).n).toBe(
      // by parent, the unique name, and one per scalar field but metadata.updateTime (every write moves it)
      1 + SCALARS.length,
    );
    // the earlier version indexed every column with its parent and name: numbers and timestamps now by value only
    expect(indexedColumns(db, 'r_widgets')).toEqual({
      r_widgets_by_f_displayName_in_parent: 'f_displayName,parent,name',
      r_widgets_by_f_metadata_createTime: 'f_metadata_createTime',
      r_widgets_by_f_metadata_generation: 'f_metadata_generation',
      r_widgets_by_f_spec_color_in_parent: 'f_spec_color,parent,name',
      r_widgets_by_f_spec_enabled_in_parent: 'f_spec_enabled,parent,name',
      r_widgets_by_f_spec_owner_in_parent: 'f_spec_owner,parent,name',
      r_widgets_by_f_spec_size: 'f_spec_size',
      r_widgets_by_f_status_counter: 'f_status_counter',
      r_widgets_by_f_status_state_in_parent: 'f_status_state,parent,name',
      r_widgets_by_parent: 'parent,name',
    });
  });
});

/** Each index of a table that SQLite did not make itself, with its columns. */
function indexedColumns(db: Db, table: string): Record<string, string> {
  const names = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`)
    .pluck()
    .all(table) as string[];
  const columns = (index: string): string =>
    (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).pluck().all(index) as string[]).join(',');
  return Object.fromEntries(names.map((index) => [index, columns(index)]));
}
