import Database from 'better-sqlite3';
import { labelContainsCandidates } from '@outpost/shared';
import type { Filter, FilterField, FilterSchema } from '@outpost/shared';
import { filterToSql } from '../../../../src/resources/storage/sql/filter-to-sql.js';
import type { SqlTarget } from '../../../../src/resources/storage/sql/filter-to-sql.js';
import type { SqlFragment } from '../../../../src/resources/storage/sql/sql-fragment.js';
import { SQL_FUNCTIONS } from '../../../../src/resources/storage/sql/sql-functions.js';

const columnOf = (field: FilterField): string => `c_${field.path.replaceAll('.', '_')}`;
const isMultiValued = (field: FilterField): boolean => field.type === 'labels' || field.type === 'stringList';

function valueAt(doc: unknown, path: string): unknown {
  let current = doc;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * A tiny store laid out the way the real one is: the JSON document, a generated (untyped, VIRTUAL) column per
 * scalar path and a side table holding label entries and list items.
 */
export class SqliteStore {
  private readonly db = new Database(':memory:');

  readonly target: SqlTarget = {
    scalar: (field, mapKey) =>
      mapKey === undefined && !isMultiValued(field)
        ? columnOf(field)
        : `json_extract(doc, '$.${field.path}${mapKey === undefined ? '' : `."${mapKey}"`}')`,
    contains: (field, value) => {
      if (field.type === 'stringList') {
        return {
          sql: 'EXISTS (SELECT 1 FROM multi m WHERE m.rid = docs.id AND m.path = ? AND m.key = ?)',
          params: [field.path, value],
        };
      }
      const candidates = labelContainsCandidates(value);
      const tests = candidates.map((c) => (c.value === undefined ? 'm.key = ?' : '(m.key = ? AND m.value = ?)'));
      return {
        sql: `EXISTS (SELECT 1 FROM multi m WHERE m.rid = docs.id AND m.path = ? AND (${tests.join(' OR ')}))`,
        params: [field.path, ...candidates.flatMap((c) => (c.value === undefined ? [c.key] : [c.key, c.value]))],
      };
    },
  };

  constructor(private readonly schema: FilterSchema) {
    const columns = schema.fields
      .filter((f) => !isMultiValued(f))
      .map((f) => `, ${columnOf(f)} GENERATED ALWAYS AS (json_extract(doc, '$.${f.path}')) VIRTUAL`);
    this.db.exec(`CREATE TABLE docs (id INTEGER PRIMARY KEY, doc TEXT NOT NULL ${columns.join('')})`);
    this.db.exec('CREATE TABLE multi (rid INTEGER NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, value TEXT)');
    for (const fn of SQL_FUNCTIONS) this.db.function(fn.name, { deterministic: true }, fn.implementation);
  }

  /** Replaces the contents with these documents; their ids are their indices. */
  load(docs: readonly unknown[]): void {
    this.db.exec('DELETE FROM docs; DELETE FROM multi;');
    const insertDoc = this.db.prepare('INSERT INTO docs (id, doc) VALUES (?, ?)');
    const insertMulti = this.db.prepare('INSERT INTO multi (rid, path, key, value) VALUES (?, ?, ?, ?)');
    docs.forEach((doc, id) => {
      insertDoc.run(id, JSON.stringify(doc));
      for (const field of this.schema.fields.filter(isMultiValued)) {
        const value = valueAt(doc, field.path);
        if (field.type === 'stringList' && Array.isArray(value)) {
          for (const item of new Set(value)) insertMulti.run(id, field.path, item, null);
        } else if (field.type === 'labels' && typeof value === 'object' && value !== null) {
          for (const [k, v] of Object.entries(value)) insertMulti.run(id, field.path, k, v);
        }
      }
    });
  }

  /** Ids of the documents the filter selects, through filterToSql. */
  select(filter: Filter): number[] {
    return this.selectWhere(filterToSql(filter, this.target));
  }

  selectWhere(where: SqlFragment): number[] {
    const rows = this.db.prepare(`SELECT id FROM docs WHERE ${where.sql} ORDER BY id`).all(...where.params);
    return rows.map((row) => (row as { id: number }).id);
  }

  close(): void {
    this.db.close();
  }
}
