import type { FilterSchema } from '@outpost/shared';
import { deepEqual, invalidArgument } from '@outpost/shared';
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
import { columnOf, isMultiValued, multiValuesOf } from '../sql/sql-columns.js';
import { valueAt } from '../row-values.js';
import { TableBase } from '../table-base.js';
import { SCHEMA_LOCK } from './pg-migrations.js';
import { columnDeclaration, columnTypeOf, columnValueOf, identifier, jsonTextAt, POSTGRES_DIALECT } from './pg-sql.js';
import type { ColumnType } from './pg-sql.js';
import type { PgStorage } from './pg-storage.js';
import type { TableOptions } from '../storage.js';
import { insertStatements, updateStatements } from './pg-row-writes.js';
import type { MultiValues, RowInsert, RowLayout, RowWrite } from './pg-row-writes.js';
import type { RowShape, Sql } from './pg-write-queue.js';
import type { PgResult, PostgresError } from './sync-postgres.js';
import { fieldLayout } from '../field-layout.js';
import type { MultiField, ScalarField } from '../field-layout.js';
import { INDEX_SHAPES, indexShapeOf } from '../index-shapes.js';
import { orderedSelect, whereClause } from '../select-sql.js';
import { tableRead } from '../value-driven.js';
import type { TableRead } from '../value-driven.js';

interface ScalarColumn extends ScalarField {
  type: ColumnType;
}

/** Names per batched lookup. */
const NAMES_PER_LOOKUP = 500;
/** PostgreSQL's null-safe equality, which a seek compares the keys before the last with */
const SAME = 'IS NOT DISTINCT FROM';
/** Rows per statement when columns added to an existing table are filled. */
const ROWS_PER_FILL = 1000;
/** Row ids taken from the table's sequence at a time, for the inserts to come (see insert). */
const IDS_PER_RESERVATION = 200;
/**
 * How full inserts leave a table's pages: the rest keeps room for the next version of a row on its own page, so an
 * update that changes no indexed column (a status write) is heap-only and writes no index entry. A row is a
 * document of a kilobyte or two, so a fifth of an 8 KiB page holds one.
 */
export const RESOURCE_TABLE_FILLFACTOR = 75;
/**
 * The fillfactor of a kind whose rows are rewritten together (TableOptions.rewrittenTogether): a new version of
 * every row on a page still fits on that page (the old ones are dead only once the writing transaction ends),
 * so a write of all of them is heap-only. Less than half, for the page header and line pointers.
 */
export const REWRITTEN_TOGETHER_FILLFACTOR = 45;

/**
 * The PostgreSQL table of one resource kind, laid out as SQLite's (see SqliteTable): the document as JSONB, a
 * typed, indexed column per scalar filterable path holding what json_extract would give (text in byte order,
 * numbers as numeric, bools as 1/0), and a side table of values for labels and string lists. A write sends its
 * statements in one round trip.
 */
export class PgTable extends TableBase implements ResourceTable {
  readonly table: string;
  private readonly multiTable: string;
  private readonly multiFields: MultiField[];
  private readonly scalars: ScalarColumn[];
  readonly addedPaths: string[] = [];
  /** the name the last find in a transaction did not find, while this table was not written since */
  private missed: { name: string; transaction: number; version: number } | undefined;
  /** ids taken from the table's sequence and not yet used, the next one last */
  private reserved: number[] = [];
  private readonly fillfactor: number;
  protected readonly target: QueryTarget;

  constructor(
    private readonly storage: PgStorage,
    plural: string,
    filterSchema: FilterSchema,
    options: TableOptions = {},
  ) {
    super();
    this.target = { plural, filterSchema, sql: this.sqlTarget, sendsConstantTrue: true };
    this.fillfactor = options.rewrittenTogether ? REWRITTEN_TOGETHER_FILLFACTOR : RESOURCE_TABLE_FILLFACTOR;
    this.table = identifier(`r_${plural}`);
    this.multiTable = identifier(`r_${plural}_values`);
    const layout = fieldLayout(filterSchema);
    this.multiFields = layout.multiFields;
    this.scalars = layout.scalars.map((scalar) => ({ ...scalar, type: columnTypeOf(scalar.field) }));
    this.createSchema(filterSchema);
  }

  private get containsSql(): string {
    return `${this.table}.id IN (SELECT row_id FROM ${this.multiTable} WHERE path = ? AND value = ?)`;
  }

  private readonly sqlTarget: SqlTarget = {
    scalar: (field, mapKey) =>
      mapKey === undefined && !isMultiValued(field)
        ? columnOf(field)
        : jsonTextAt(mapKey === undefined ? field.path.split('.') : [...field.path.split('.'), mapKey]),
    // a list filtered by one of these at its top level is read in the side table's order (see valueDrivenRead)
    contains: (field, value) => ({ sql: this.containsSql, params: [field.path, value] }),
    containsAny: (field, values) => ({
      sql: `${this.table}.id IN (SELECT row_id FROM ${this.multiTable} WHERE path = ? AND value = ANY(?::text[]))`,
      params: [field.path, [...values]],
    }),
    dialect: POSTGRES_DIALECT,
  };

  private createSchema(filterSchema: FilterSchema): void {
    const t = this.table;
    const v = this.multiTable;
    this.storage.transaction(() => {
      // another control plane may be creating the same table
      this.storage.query('SELECT pg_advisory_xact_lock(?)', [SCHEMA_LOCK]);
      // DDL only for what is missing: even an IF NOT EXISTS on an existing index waits for every open writer.
      // Unquoted names are folded to lower case: the catalogs hold r_devicetypes for r_deviceTypes.
      const indexes = new Set(
        this.storage
          .query('SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN (?, ?)', [
            folded(t),
            folded(v),
          ])
          .rows.map((row) => String(row[0])),
      );
      const index = (name: string, on: string): Sql[] =>
        indexes.has(folded(identifier(name))) ? [] : [{ sql: `CREATE INDEX ${identifier(name)} ON ${on}` }];
      this.storage.run([
        {
          sql: `CREATE TABLE IF NOT EXISTS ${t} (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text COLLATE "C" NOT NULL UNIQUE,
            parent text COLLATE "C" NOT NULL,
            doc jsonb NOT NULL) WITH (fillfactor = ${this.fillfactor})`,
        },
        {
          sql: `CREATE TABLE IF NOT EXISTS ${v} (
            row_id bigint NOT NULL,
            path text COLLATE "C" NOT NULL,
            value text COLLATE "C" NOT NULL,
            row_name text COLLATE "C" NOT NULL)`,
        },
        ...this.rowNamesInSideTable(),
        ...index(`${v}_by_value`, `${v}(path, value, row_id)`),
        ...index(`${v}_in_name_order`, `${v}(path, value, row_name) INCLUDE (row_id)`),
        ...index(`${v}_by_row`, `${v}(row_id)`),
        ...index(`${t}_by_parent`, `${t}(parent, name)`),
      ]);
      const existing = new Map(
        this.storage
          .query(
            'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
            [folded(t)],
          )
          .rows.map((row) => [String(row[0]), String(row[1])]),
      );
      const wanted = new Map(this.scalars.map((c) => [folded(c.column), c]));
      const changes: Sql[] = [];
      // a table made before its pages kept room for updates: the pages written from now on do
      const fillfactor = `fillfactor=${this.fillfactor}`;
      const options = this.storage.query('SELECT reloptions FROM pg_class WHERE oid = to_regclass(?)', [t]).rows[0];
      const set = options?.[0];
      if (!Array.isArray(set) || !set.includes(fillfactor)) {
        changes.push({ sql: `ALTER TABLE ${t} SET (fillfactor = ${this.fillfactor})` });
      }
      for (const [column, type] of existing) {
        if (!column.startsWith('f_')) continue;
        const scalar = wanted.get(column);
        // a path no longer filterable (its column would no longer follow the documents), or now of another type
        if (scalar === undefined || !sameType(scalar.type, type)) {
          changes.push({ sql: `ALTER TABLE ${t} DROP COLUMN ${column}` });
          for (const shape of INDEX_SHAPES) indexes.delete(folded(identifier(shape.name(t, column))));
          existing.delete(column);
        }
      }
      const added = this.scalars.filter((c) => !existing.has(folded(c.column)));
      for (const scalar of added) {
        changes.push({ sql: `ALTER TABLE ${t} ADD COLUMN ${scalar.column} ${columnDeclaration(scalar.type)}` });
        this.addedPaths.push(scalar.path);
      }
      for (const field of filterSchema.fields) {
        if (isMultiValued(field) || field.path === 'name' || field.type === 'object') continue;
        const column = columnOf(field);
        const shape = indexShapeOf(field);
        for (const other of INDEX_SHAPES) {
          const name = identifier(other.name(t, column));
          if (other !== shape && indexes.has(folded(name))) changes.push({ sql: `DROP INDEX ${name}` });
        }
        if (shape) changes.push(...index(shape.name(t, column), `${t}(${shape.columns(column)})`));
      }
      if (changes.length > 0) this.storage.run(changes);
      if (added.length > 0) this.fill(added);
    });
  }

  /**
   * A side table made before it held its rows' names (which valueDrivenRead reads in order) gets them from the
   * kind's table.
   */
  private rowNamesInSideTable(): Sql[] {
    const v = this.multiTable;
    const columns = this.storage
      .query(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
        [folded(v)],
      )
      .rows.map((row) => String(row[0]));
    if (columns.length === 0 || columns.includes('row_name')) return [];
    return [
      { sql: `ALTER TABLE ${v} ADD COLUMN row_name text COLLATE "C"` },
      { sql: `UPDATE ${v} SET row_name = t.name FROM ${this.table} t WHERE t.id = ${v}.row_id` },
      { sql: `ALTER TABLE ${v} ALTER COLUMN row_name SET NOT NULL` },
    ];
  }

  /** Sets columns just added to an existing table from the documents it holds. */
  private fill(columns: readonly ScalarColumn[]): void {
    let after = 0;
    for (;;) {
      const { rows } = this.storage.query(
        `SELECT id, doc FROM ${this.table} WHERE id > ? ORDER BY id LIMIT ${ROWS_PER_FILL}`,
        [after],
      );
      if (rows.length === 0) return;
      const ids = rows.map((row) => row[0] as number);
      const docs = rows.map((row) => parseDocument(row[1] as string));
      const sets = columns.map((c, i) => `${c.column} = u.c${i}::${c.type}`).join(', ');
      const unnest = columns.map(() => ', ?::text[]').join('');
      const names = columns.map((_, i) => `, c${i}`).join('');
      this.storage.run([
        {
          sql: `UPDATE ${this.table} SET ${sets} FROM unnest(?::bigint[]${unnest}) AS u(id${names}) WHERE ${this.table}.id = u.id`,
          params: [ids, ...columns.map((c) => docs.map((doc) => text(columnValueOf(c.type, valueAt(doc, c.keys)))))],
        },
      ]);
      after = ids[ids.length - 1]!;
    }
  }

  find(name: string): StoredRow | undefined {
    const { sql, params } = this.byName(name);
    const row = this.foundRow(this.storage.query(sql, params));
    if (!row) this.missed = { name, transaction: this.storage.transactionNumber, version: this.version };
    return row;
  }

  private byName(name: string): Sql {
    return { sql: `SELECT id, doc FROM ${this.table} WHERE name = ?`, params: [name] };
  }

  private foundRow(result: PgResult): StoredRow | undefined {
    const row = result.rows[0];
    return row && { id: row[0] as number, doc: parseDocument(row[1] as string) };
  }

  findMany(names: Iterable<string>): Map<string, StoredRow> {
    const found = new Map<string, StoredRow>();
    const all = [...new Set(names)];
    for (let i = 0; i < all.length; i += NAMES_PER_LOOKUP) {
      const batch = all.slice(i, i + NAMES_PER_LOOKUP);
      const { rows } = this.storage.query(`SELECT id, name, doc FROM ${this.table} WHERE name = ANY(?::text[])`, [
        batch,
      ]);
      for (const row of rows) {
        found.set(row[1] as string, { id: row[0] as number, doc: parseDocument(row[2] as string) });
      }
    }
    return found;
  }

  exists(name: string): boolean {
    // a create reads the name and then checks it again: the answer of that read stands in this transaction
    const missed = this.missed;
    const inTransaction = this.storage.transactionNumber;
    if (missed?.name === name && missed.version === this.version && inTransaction !== 0) {
      if (missed.transaction === inTransaction) return false;
    }
    return this.storage.query(`SELECT 1 FROM ${this.table} WHERE name = ?`, [name]).rows.length > 0;
  }

  /**
   * Queues the insert (see PgStorage.deferRow) under an id taken from the ones reserved: no round trip of its own.
   * A name taken meanwhile by another connection fails the transaction at its next round trip.
   */
  insert(name: string, parent: string, doc: Doc, json = JSON.stringify(doc)): number {
    this.writing();
    const id = this.reservedId();
    this.storage.deferRow(this.inserts, id, {
      id,
      name,
      parent,
      text: json,
      columns: this.columnsOf(doc),
      multi: this.multiValuesOf(doc),
    });
    this.told(id, name, doc);
    return id;
  }

  update(id: number, doc: Doc, json = JSON.stringify(doc), before?: Doc, touched?: ReadonlySet<string>): void {
    this.writing();
    const within = (keys: readonly string[]): boolean => touched === undefined || touched.has(keys[0] ?? '');
    const replaceMulti =
      this.multiFields.length > 0 && (before === undefined || this.multiValuesDiffer(before, doc, within));
    // every column is set (one that keeps its value costs PostgreSQL nothing more), so that the updates of many
    // rows share one statement
    this.storage.deferRow(this.updates, id, {
      id,
      text: json,
      columns: this.columnsOf(doc),
      ...(replaceMulti ? { multi: this.multiValuesOf(doc) } : {}),
    });
    this.told(id, String(doc['name']), doc);
  }

  private readonly inserts: RowShape<RowInsert> = {
    statements: (rows) => insertStatements(this.layout, rows),
    mapError: (err) => indexEntryTooLong(err) ?? err,
  };

  private readonly updates: RowShape<RowWrite> = {
    statements: (rows) => updateStatements(this.layout, rows),
    mapError: (err) => indexEntryTooLong(err) ?? err,
  };

  private get layout(): RowLayout {
    return { table: this.table, multiTable: this.multiTable, scalars: this.scalars };
  }

  private columnsOf(doc: Doc): (string | null)[] {
    return this.scalars.map((c) => text(columnValueOf(c.type, valueAt(doc, c.keys))));
  }

  /** The next of the ids reserved from the table's sequence (reserving more when none is left). */
  private reservedId(): number {
    if (this.reserved.length === 0) {
      const { rows } = this.storage.query(
        `SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ${IDS_PER_RESERVATION})`,
        [this.table],
      );
      this.reserved = rows.map((row) => row[0] as number).reverse();
    }
    return this.reserved.pop()!;
  }

  remove(id: number, name: string): void {
    this.writing();
    this.storage.defer({ sql: `DELETE FROM ${this.table} WHERE id = ?`, params: [id] });
    this.storage.defer({ sql: `DELETE FROM ${this.multiTable} WHERE row_id = ?`, params: [id] });
    this.told(id, name, null);
  }

  private multiValuesOf(doc: Doc): MultiValues {
    const paths: string[] = [];
    const values: string[] = [];
    const name = String(doc['name']);
    for (const { field, keys } of this.multiFields) {
      for (const value of new Set(multiValuesOf(field, valueAt(doc, keys)))) {
        paths.push(field.path);
        values.push(value);
      }
    }
    return { paths, values, name };
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

  eachStored(q: TableQuery, visit: (row: Omit<QueriedRow, 'doc'>) => void): void {
    const { sql, params } = this.selectOf(q);
    for (const row of this.storage.query(sql, params).rows) visit(storedRowOf(row));
  }

  /** The queries' statements go out together: one round trip for all of them. */
  override queryAll(qs: readonly TableQuery[]): QueriedRow[][] {
    if (qs.length < 2) return super.queryAll(qs);
    const results = this.storage.run(qs.map((q) => this.selectOf(q)));
    return results.map((result) => result.rows.map((row) => this.withDocument(storedRowOf(row))));
  }

  /** Queued with the transaction's next round trip (see PgStorage.deferRead); outside one, run when taken. */
  override queryLater(q: TableQuery): () => QueriedRow[] {
    const read = this.storage.deferRead(this.selectOf(q));
    return () => read()?.rows.map((row) => this.withDocument(storedRowOf(row))) ?? this.query(q);
  }

  override findLater(name: string): () => StoredRow | undefined {
    const read = this.storage.deferRead(this.byName(name));
    return () => {
      const result = read();
      return result === undefined ? this.find(name) : this.foundRow(result);
    };
  }

  private selectOf(q: TableQuery): Sql {
    const { from, keys, conditions, params } = this.readOf(q.where, q.keys, q.seek);
    return { sql: orderedSelect(from, { ...q, keys }, conditions), params };
  }

  count(
    where: readonly TableCondition[],
    seek?: { keys: readonly SortKey[]; values: unknown[]; before: boolean },
  ): number {
    const { from, conditions, params } = this.readOf(where, seek?.keys ?? [], seek);
    const sql = `SELECT COUNT(*) FROM ${from}` + whereClause(conditions);
    return Number(this.storage.query(sql, params).rows[0]?.[0] ?? 0);
  }

  /** The FROM clause and conditions of a read: from the side table's index when it gives the order (see valueDrivenRead). */
  private readOf(
    where: readonly TableCondition[],
    keys: readonly SortKey[],
    seek: { values: unknown[]; before: boolean; inclusive?: boolean } | undefined,
  ): TableRead {
    const tables = { table: this.table, multiTable: this.multiTable, containsSql: this.containsSql, same: SAME };
    const compiled = compileWhere(this.target, where);
    return tableRead(tables, this.multiFields.length > 0, compiled, compileKeys(this.target, keys), seek);
  }
}

/**
 * A write whose filterable value is too long for a PostgreSQL index entry (about 2,700 bytes, after compression)
 * is refused as the request's fault, naming the limit, rather than failing as the server's.
 */
function indexEntryTooLong(err: PostgresError): Error | undefined {
  if (err.code !== '54000') return undefined;
  return invalidArgument(
    `a filterable field is too long to index (PostgreSQL keeps at most about 2,700 bytes): ${err.message}`,
  );
}

/** A row of a table query (id, document text, sort keys), as `eachStored` hands it on. */
function storedRowOf(row: unknown[]): Omit<QueriedRow, 'doc'> {
  return { id: row[0] as number, text: row[1] as string, keyValues: row.slice(2).map(keyValueOf) };
}

/** A sort-key value as SQLite gives it (bools 1/0), so page tokens read the same on both stores. */
function keyValueOf(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** A column value sent as text (arrays of mixed types go as text[] and are cast per column). */
const text = (value: string | number | null): string | null => (value === null ? null : String(value));

function sameType(wanted: ColumnType, dataType: string): boolean {
  return dataType === wanted;
}

/** An unquoted name as PostgreSQL's catalogs keep it. */
const folded = (name: string): string => name.toLowerCase();
