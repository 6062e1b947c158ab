import type { FilterField, FilterSchema, SqlFragment, SqlTarget } from '@outpost/shared';
import { getPath } from '@outpost/shared';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open-database.js';
import { columnOf, isMultiValued, jsonPath, multiValuesOf, sqlLiteral } from './sql-columns.js';

export type Doc = Record<string, unknown>;

export interface StoredRow {
  id: number;
  doc: Doc;
}

/** One ordering key of a query: a SQL expression and its direction. */
export interface SortKey {
  sql: string;
  desc: boolean;
}

export interface TableQuery {
  where: SqlFragment[];
  keys: SortKey[];
  /** rows strictly after (or before, for `reverse`) these key values, in key order */
  seek?: { values: unknown[]; before: boolean };
  /** read the keys in reverse order (for a previous page) */
  reverse?: boolean;
  limit?: number;
}

export interface QueriedRow {
  doc: Doc;
  keyValues: unknown[];
}

/**
 * The SQLite table of one resource kind: the JSON document, generated indexed columns for every scalar
 * filterable path, and a side table of values for labels and string lists.
 */
export class ResourceTable {
  readonly table: string;
  private readonly multiTable: string;
  private readonly statements = new Map<string, Statement<unknown[]>>();
  private readonly multiFields: FilterField[];
  private readonly byName;
  private readonly byNameExists;
  private readonly insertRow;
  private readonly updateRow;
  private readonly deleteRow;
  private readonly insertMulti;
  private readonly deleteMulti;

  constructor(
    private readonly db: Db,
    plural: string,
    filterSchema: FilterSchema,
  ) {
    this.table = `r_${plural}`;
    this.multiTable = `r_${plural}_values`;
    this.multiFields = filterSchema.fields.filter(isMultiValued);
    this.createSchema(filterSchema);
    this.byName = db.prepare<[string], { id: number; doc: string }>(`SELECT id, doc FROM ${this.table} WHERE name = ?`);
    this.byNameExists = db.prepare<[string], { id: number }>(`SELECT id FROM ${this.table} WHERE name = ?`);
    this.insertRow = db.prepare<[string, string, string]>(
      `INSERT INTO ${this.table}(name, parent, doc) VALUES (?, ?, ?)`,
    );
    this.updateRow = db.prepare<[string, number]>(`UPDATE ${this.table} SET doc = ? WHERE id = ?`);
    this.deleteRow = db.prepare<[number]>(`DELETE FROM ${this.table} WHERE id = ?`);
    this.insertMulti = db.prepare<[number, string, string]>(
      `INSERT INTO ${this.multiTable}(row_id, path, value) VALUES (?, ?, ?)`,
    );
    this.deleteMulti = db.prepare<[number]>(`DELETE FROM ${this.multiTable} WHERE row_id = ?`);
  }

  private createSchema(filterSchema: FilterSchema): void {
    const t = this.table;
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      parent TEXT NOT NULL,
      doc TEXT NOT NULL
    )`);
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${t}_by_parent ON ${t}(parent, name)`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.multiTable} (
      row_id INTEGER NOT NULL,
      path TEXT NOT NULL,
      value TEXT NOT NULL
    )`);
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${this.multiTable}_by_value ON ${this.multiTable}(path, value, row_id)`);
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${this.multiTable}_by_row ON ${this.multiTable}(row_id)`);
    const existing = new Set(
      (this.db.prepare(`SELECT name FROM pragma_table_xinfo('${t}')`).all() as { name: string }[]).map((r) => r.name),
    );
    for (const field of filterSchema.fields) {
      if (isMultiValued(field) || field.path === 'name') continue;
      const column = columnOf(field);
      if (!existing.has(column)) {
        this.db.exec(
          `ALTER TABLE ${t} ADD COLUMN ${column} GENERATED ALWAYS AS (json_extract(doc, ${sqlLiteral(jsonPath(field.path))})) VIRTUAL`,
        );
      }
      if (field.type !== 'object') {
        // equality on the column and the parent, then in name order: a filtered page and its counts in one range
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${t}_by_${column}_in_parent ON ${t}(${column}, parent, name)`);
      }
    }
  }

  /** How filters address this table's columns. */
  readonly sqlTarget: SqlTarget = {
    scalar: (field, mapKey) =>
      mapKey === undefined && !isMultiValued(field)
        ? columnOf(field)
        : `json_extract(doc, ${sqlLiteral(jsonPath(field.path, mapKey))})`,
    contains: (field, value) => ({
      sql: `EXISTS (SELECT 1 FROM ${this.multiTable} v WHERE v.row_id = ${this.table}.id AND v.path = ? AND v.value = ?)`,
      params: [field.path, value],
    }),
  };

  find(name: string): StoredRow | undefined {
    const row = this.byName.get(name);
    return row && { id: row.id, doc: JSON.parse(row.doc) as Doc };
  }

  insert(name: string, parent: string, doc: Doc): number {
    const id = Number(this.insertRow.run(name, parent, JSON.stringify(doc)).lastInsertRowid);
    this.writeMultiValues(id, doc);
    return id;
  }

  exists(name: string): boolean {
    return this.byNameExists.get(name) !== undefined;
  }

  update(id: number, doc: Doc, text = JSON.stringify(doc)): void {
    this.updateRow.run(text, id);
    if (this.multiFields.length > 0) {
      this.deleteMulti.run(id);
      this.writeMultiValues(id, doc);
    }
  }

  remove(id: number): void {
    this.deleteRow.run(id);
    this.deleteMulti.run(id);
  }

  private writeMultiValues(id: number, doc: Doc): void {
    for (const field of this.multiFields) {
      for (const value of new Set(multiValuesOf(field, getPath(doc, field.path)))) {
        this.insertMulti.run(id, field.path, value);
      }
    }
  }

  query(q: TableQuery): QueriedRow[] {
    const params: unknown[] = [];
    const conditions = q.where.map((w) => {
      params.push(...w.params);
      return `(${w.sql})`;
    });
    if (q.seek) {
      const seek = seekCondition(q.keys, q.seek.values, q.seek.before);
      conditions.push(seek.sql);
      params.push(...seek.params);
    }
    const flip = (desc: boolean): string => ((q.reverse ?? false) !== desc ? 'DESC' : 'ASC');
    const keyColumns = q.keys.map((k, i) => `${k.sql} AS k${i}`).join(', ');
    const sql =
      `SELECT doc, ${keyColumns} FROM ${this.table}` +
      (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '') +
      ` ORDER BY ${q.keys.map((k, i) => `k${i} ${flip(k.desc)}`).join(', ')}` +
      (q.limit !== undefined ? ` LIMIT ${Math.floor(q.limit)}` : '');
    const rows = this.statement(sql).all(...params) as Record<string, unknown>[];
    return rows.map((row) => ({
      doc: JSON.parse(row['doc'] as string) as Doc,
      keyValues: q.keys.map((_, i) => row[`k${i}`]),
    }));
  }

  count(where: SqlFragment[], seek?: { keys: SortKey[]; values: unknown[]; before: boolean }): number {
    const params: unknown[] = [];
    const conditions = where.map((w) => {
      params.push(...w.params);
      return `(${w.sql})`;
    });
    if (seek) {
      const s = seekCondition(seek.keys, seek.values, seek.before);
      conditions.push(s.sql);
      params.push(...s.params);
    }
    const sql =
      `SELECT COUNT(*) AS n FROM ${this.table}` + (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');
    return (this.statement(sql).get(...params) as { n: number }).n;
  }

  private statement(sql: string): Statement<unknown[]> {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      if (this.statements.size > 500) this.statements.clear();
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
}

/**
 * Rows strictly after (or before) a position in key order: a lexicographic comparison spelled out as
 * (k0 > v0) OR (k0 IS v0 AND k1 > v1) OR ... with each key's own direction.
 */
function seekCondition(keys: SortKey[], values: unknown[], before: boolean): SqlFragment {
  const params: unknown[] = [];
  const alternatives: string[] = [];
  keys.forEach((key, i) => {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) {
      parts.push(`${keys[j]!.sql} IS ?`);
      params.push(values[j] ?? null);
    }
    const greater = key.desc === before;
    parts.push(`${key.sql} ${greater ? '>' : '<'} ?`);
    params.push(values[i] ?? null);
    alternatives.push(`(${parts.join(' AND ')})`);
  });
  return { sql: `(${alternatives.join(' OR ')})`, params };
}
