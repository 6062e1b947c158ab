import type { FilterSchema } from '@outpost/shared';
import { deepEqual } from '@outpost/shared';
import type { Statement } from 'better-sqlite3';
import type { Db } from './open-database.js';
import type {
  Doc,
  QueriedRow,
  ResourceTable,
  SortKey,
  StoredRow,
  TableCondition,
  TableQuery,
} from '../../resource-table.js';
import { parseDocument } from '../../doc-utils.js';
import { compileKeys, compileWhere } from '../sql/compile-query.js';
import type { QueryTarget } from '../sql/compile-query.js';
import type { SqlTarget } from '../sql/filter-to-sql.js';
import type { SqlFragment } from '../sql/sql-fragment.js';
import { columnOf, isMultiValued, jsonPath, multiValuesOf, sqlLiteral, sqlValueOf } from '../sql/sql-columns.js';
import { mayDiffer, valueAt } from '../row-values.js';
import { TableBase } from '../table-base.js';
import { fieldLayout } from '../field-layout.js';
import type { MultiField, ScalarField } from '../field-layout.js';
import { INDEX_SHAPES, indexShapeOf } from '../index-shapes.js';
import { orderedSelect, whereClause } from '../select-sql.js';
import { tableRead } from '../value-driven.js';
import type { TableRead } from '../value-driven.js';

/** Names per batched lookup (SQLite's default limit of bound variables is far above this). */
const NAMES_PER_LOOKUP = 500;

/**
 * The SQLite table of one resource kind: the JSON document, an indexed column for every scalar filterable
 * path, and a side table of values for labels and string lists, each value with its row's name (a list by one
 * value reads that value's rows in name order from the side table, see valueDrivenRead).
 *
 * The columns are ordinary columns holding json_extract(doc, path), written with the document: an update
 * sets only the columns whose value may have changed, so SQLite rewrites only their indexes (a generated
 * column would make every index of the table change with every write of the document). Tables made by
 * earlier versions with generated columns are rebuilt once.
 */
export class SqliteTable extends TableBase implements ResourceTable {
  readonly table: string;
  private readonly multiTable: string;
  private readonly statements = new Map<string, Statement<unknown[]>>();
  /** UPDATE statements by the columns they write */
  private readonly updates = new Map<string, Statement<unknown[]>>();
  private readonly multiFields: MultiField[];
  private readonly scalars: ScalarField[];
  private readonly byName;
  private readonly byNameExists;
  private readonly insertRow;
  private readonly deleteRow;
  private readonly insertMulti;
  private readonly deleteMulti;
  /** the filterable paths whose columns this opening added to an existing table (filled from the documents) */
  readonly addedPaths: string[] = [];
  protected readonly target: QueryTarget;

  constructor(
    private readonly db: Db,
    plural: string,
    filterSchema: FilterSchema,
  ) {
    super();
    this.target = { plural, filterSchema, sql: this.sqlTarget };
    this.table = `r_${plural}`;
    this.multiTable = `r_${plural}_values`;
    ({ multiFields: this.multiFields, scalars: this.scalars } = fieldLayout(filterSchema));
    this.createSchema(filterSchema);
    const t = this.table;
    this.byName = db.prepare<[string], { id: number; doc: string }>(`SELECT id, doc FROM ${t} WHERE name = ?`);
    this.byNameExists = db.prepare<[string], { id: number }>(`SELECT id FROM ${t} WHERE name = ?`);
    this.insertRow = db.prepare<unknown[]>(
      `INSERT INTO ${t}(name, parent, doc${this.scalars.map((c) => `, ${c.column}`).join('')}) ` +
        `VALUES (?, ?, ?${this.scalars.map(() => ', ?').join('')})`,
    );
    this.deleteRow = db.prepare<[number]>(`DELETE FROM ${t} WHERE id = ?`);
    this.insertMulti = db.prepare<[number, string, string, string]>(
      `INSERT INTO ${this.multiTable}(row_id, path, value, row_name) VALUES (?, ?, ?, ?)`,
    );
    this.deleteMulti = db.prepare<[number]>(`DELETE FROM ${this.multiTable} WHERE row_id = ?`);
  }

  private createSchema(filterSchema: FilterSchema): void {
    const t = this.table;
    this.db.transaction(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      parent TEXT NOT NULL,
      doc TEXT NOT NULL
    )`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.multiTable} (
      row_id INTEGER NOT NULL,
      path TEXT NOT NULL,
      value TEXT NOT NULL,
      row_name TEXT NOT NULL
    )`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${this.multiTable}_by_value ON ${this.multiTable}(path, value, row_id)`);
      // in the names' own order (BINARY), which lists and their page tokens use
      this.db.exec(
        `CREATE INDEX IF NOT EXISTS ${this.multiTable}_in_name_order ON ${this.multiTable}(path, value, row_name, row_id)`,
      );
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${this.multiTable}_by_row ON ${this.multiTable}(row_id)`);
      if (this.columns().some((c) => c.generated)) this.dropGeneratedColumns();
      const wanted = new Set(this.scalars.map((c) => c.column));
      for (const column of this.columns()) {
        if (!column.name.startsWith('f_') || wanted.has(column.name)) continue;
        // a path no longer filterable: its column would no longer follow the documents
        for (const shape of INDEX_SHAPES) this.db.exec(`DROP INDEX IF EXISTS ${shape.name(t, column.name)}`);
        this.db.exec(`ALTER TABLE ${t} DROP COLUMN ${column.name}`);
      }
      const existing = new Set(this.columns().map((c) => c.name));
      for (const scalar of this.scalars) {
        if (existing.has(scalar.column)) continue;
        this.db.exec(`ALTER TABLE ${t} ADD COLUMN ${scalar.column}`);
        this.db.exec(`UPDATE ${t} SET ${scalar.column} = json_extract(doc, ${sqlLiteral(jsonPath(scalar.path))})`);
        this.addedPaths.push(scalar.path);
      }
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${t}_by_parent ON ${t}(parent, name)`);
      for (const field of filterSchema.fields) {
        if (isMultiValued(field) || field.path === 'name' || field.type === 'object') continue;
        const column = columnOf(field);
        const wanted = indexShapeOf(field);
        for (const shape of INDEX_SHAPES) {
          if (shape !== wanted) this.db.exec(`DROP INDEX IF EXISTS ${shape.name(t, column)}`);
        }
        if (wanted)
          this.db.exec(`CREATE INDEX IF NOT EXISTS ${wanted.name(t, column)} ON ${t}(${wanted.columns(column)})`);
      }
    })();
  }

  private columns(): { name: string; generated: boolean }[] {
    const rows = this.db.prepare(`SELECT name, hidden FROM pragma_table_xinfo('${this.table}')`).all() as {
      name: string;
      hidden: number;
    }[];
    return rows.map((row) => ({ name: row.name, generated: row.hidden === 2 || row.hidden === 3 }));
  }

  /** Rebuilds a table of an earlier version (generated columns) with the documents and row ids it holds. */
  private dropGeneratedColumns(): void {
    const t = this.table;
    this.db.exec(`CREATE TABLE ${t}_rebuilt (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      parent TEXT NOT NULL,
      doc TEXT NOT NULL
    )`);
    this.db.exec(`INSERT INTO ${t}_rebuilt(id, name, parent, doc) SELECT id, name, parent, doc FROM ${t}`);
    this.db.exec(`DROP TABLE ${t}`);
    this.db.exec(`ALTER TABLE ${t}_rebuilt RENAME TO ${t}`);
  }

  private get containsSql(): string {
    return `EXISTS (SELECT 1 FROM ${this.multiTable} v WHERE v.row_id = ${this.table}.id AND v.path = ? AND v.value = ?)`;
  }

  /** How filters address this table's columns. */
  private readonly sqlTarget: SqlTarget = {
    scalar: (field, mapKey) =>
      mapKey === undefined && !isMultiValued(field)
        ? columnOf(field)
        : `json_extract(doc, ${sqlLiteral(jsonPath(field.path, mapKey))})`,
    // a list filtered by one of these at its top level is read in the side table's order (see valueDrivenRead)
    contains: (field, value) => ({ sql: this.containsSql, params: [field.path, value] }),
  };

  find(name: string): StoredRow | undefined {
    const row = this.byName.get(name);
    return row && { id: row.id, doc: parseDocument(row.doc) };
  }

  /** The stored rows of many names (absent ones are left out), a few hundred names per statement. */
  findMany(names: Iterable<string>): Map<string, StoredRow> {
    const found = new Map<string, StoredRow>();
    const all = [...new Set(names)];
    for (let i = 0; i < all.length; i += NAMES_PER_LOOKUP) {
      const batch = all.slice(i, i + NAMES_PER_LOOKUP);
      const rows = this.statement(
        `SELECT id, name, doc FROM ${this.table} WHERE name IN (${batch.map(() => '?').join(', ')})`,
      ).all(...batch) as { id: number; name: string; doc: string }[];
      for (const row of rows) found.set(row.name, { id: row.id, doc: parseDocument(row.doc) });
    }
    return found;
  }

  insert(name: string, parent: string, doc: Doc, text = JSON.stringify(doc)): number {
    this.writing();
    const values = this.scalars.map((c) => sqlValueOf(valueAt(doc, c.keys)));
    const id = Number(this.insertRow.run(name, parent, text, ...values).lastInsertRowid);
    this.writeMultiValues(id, name, doc);
    this.told(id, name, doc);
    return id;
  }

  exists(name: string): boolean {
    return this.byNameExists.get(name) !== undefined;
  }

  /**
   * Writes `doc` (serialised as `text`) over row `id`. With `before`, the document stored there now, only the
   * columns and side-table values that may differ are written; without it, all of them. `touched`: the only
   * top-level members that may differ from `before`, when the caller knows.
   */
  update(id: number, doc: Doc, text = JSON.stringify(doc), before?: Doc, touched?: ReadonlySet<string>): void {
    this.writing();
    const within = (keys: readonly string[]): boolean => touched === undefined || touched.has(keys[0] ?? '');
    // one pass and one array of parameters: this runs for each of the tens of thousands of rows a recompute writes
    const changed: ScalarField[] = [];
    const params: unknown[] = [text];
    for (const c of this.scalars) {
      if (before !== undefined && !(within(c.keys) && mayDiffer(before, doc, c.keys))) continue;
      changed.push(c);
      params.push(sqlValueOf(valueAt(doc, c.keys)));
    }
    params.push(id);
    this.updateStatement(changed).run(params);
    if (this.multiFields.length > 0 && (before === undefined || this.multiValuesDiffer(before, doc, within))) {
      this.deleteMulti.run(id);
      this.writeMultiValues(id, String(doc['name']), doc);
    }
    this.told(id, String(doc['name']), doc);
  }

  /** Removes row `id`, stored under `name`. */
  remove(id: number, name: string): void {
    this.writing();
    this.deleteRow.run(id);
    this.deleteMulti.run(id);
    this.told(id, name, null);
  }

  private updateStatement(columns: readonly ScalarField[]): Statement<unknown[]> {
    const key = columns.map((c) => c.column).join(',');
    let statement = this.updates.get(key);
    if (!statement) {
      const sets = ['doc = ?', ...columns.map((c) => `${c.column} = ?`)];
      statement = this.db.prepare<unknown[]>(`UPDATE ${this.table} SET ${sets.join(', ')} WHERE id = ?`);
      this.updates.set(key, statement);
    }
    return statement;
  }

  private multiValuesDiffer(before: Doc, after: Doc, within: (keys: readonly string[]) => boolean): boolean {
    return this.multiFields.some(({ field, keys }) => {
      if (!within(keys)) return false;
      const old = valueAt(before, keys);
      const next = valueAt(after, keys);
      if (old === next || deepEqual(old, next)) return false;
      const a = new Set(multiValuesOf(field, old));
      const b = new Set(multiValuesOf(field, next));
      return a.size !== b.size || [...a].some((value) => !b.has(value));
    });
  }

  private writeMultiValues(id: number, name: string, doc: Doc): void {
    for (const { field, keys } of this.multiFields) {
      for (const value of new Set(multiValuesOf(field, valueAt(doc, keys)))) {
        this.insertMulti.run(id, field.path, value, name);
      }
    }
  }

  eachStored(q: TableQuery, visit: (row: Omit<QueriedRow, 'doc'>) => void): void {
    for (const row of this.rowsOf(this.selectOf(q))) visit(row);
  }

  private rowsOf({ sql, params }: SqlFragment): Omit<QueriedRow, 'doc'>[] {
    const rows = this.statement(sql)
      .raw()
      .all(...params) as unknown[][];
    return rows.map((row) => ({ id: row[0] as number, text: row[1] as string, keyValues: row.slice(2) }));
  }

  /**
   * How SQLite runs a table query, or the count of the rows that meet `where` (`{ count }`): its EXPLAIN QUERY
   * PLAN, one step a line (for tests and diagnosis).
   */
  queryPlan(q: TableQuery | { count: readonly TableCondition[] }): string[] {
    const { sql, params } = 'count' in q ? this.countOf(q.count, undefined) : this.selectOf(q);
    const steps = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    return steps.map((step) => step.detail);
  }

  /** Compiled now (a query that cannot be compiled fails at this call, as on PostgreSQL), run when taken. */
  override queryLater(q: TableQuery): () => QueriedRow[] {
    const select = this.selectOf(q);
    return () => this.rowsOf(select).map((row) => this.withDocument(row));
  }

  private selectOf(q: TableQuery): SqlFragment {
    const { from, keys, conditions, params } = this.readOf(q.where, q.keys, q.seek);
    return { sql: orderedSelect(from, { ...q, keys }, conditions), params };
  }

  count(
    where: readonly TableCondition[],
    seek?: { keys: readonly SortKey[]; values: unknown[]; before: boolean },
  ): number {
    const { sql, params } = this.countOf(where, seek);
    return (this.statement(sql).get(...params) as { n: number }).n;
  }

  private countOf(
    where: readonly TableCondition[],
    seek: { keys: readonly SortKey[]; values: unknown[]; before: boolean } | undefined,
  ): SqlFragment {
    const { from, conditions, params } = this.readOf(where, seek?.keys ?? [], seek);
    return { sql: `SELECT COUNT(*) AS n FROM ${from}` + whereClause(conditions), params };
  }

  private readOf(
    where: readonly TableCondition[],
    keys: readonly SortKey[],
    seek: { values: unknown[]; before: boolean; inclusive?: boolean } | undefined,
  ): TableRead {
    const tables = { table: this.table, multiTable: this.multiTable, containsSql: this.containsSql, same: 'IS' };
    const compiled = compileWhere(this.target, where);
    return tableRead(tables, this.multiFields.length > 0, compiled, compileKeys(this.target, keys), seek);
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
