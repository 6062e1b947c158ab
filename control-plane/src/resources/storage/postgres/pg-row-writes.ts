import type { ColumnType } from './pg-sql.js';
import type { Sql } from './pg-write-queue.js';

/** Where a kind's rows live: its table, its side table of multi values, and its typed columns in order. */
export interface RowLayout {
  table: string;
  multiTable: string;
  scalars: readonly { column: string; type: ColumnType }[];
}

/** The side-table values of a row: one (path, value) pair each. */
export interface MultiValues {
  paths: string[];
  values: string[];
}

/** A row's write: its document as JSON, every column's value as text (cast per column), its side-table values. */
export interface RowWrite {
  id: number;
  text: string;
  columns: (string | null)[];
  /** for an update, only when they changed (else they are left as they are) */
  multi?: MultiValues;
}

export interface RowInsert extends RowWrite {
  name: string;
  parent: string;
}

/*
 * Each statement takes its rows as arrays (unnest), so one statement writes any number of rows and its text, which
 * the connection prepares once, does not depend on how many.
 */

const columnArrays = (layout: RowLayout): string => layout.scalars.map(() => ', ?::text[]').join('');
const columnNames = (layout: RowLayout): string => layout.scalars.map((_, i) => `, c${i}`).join('');
const columnValues = (layout: RowLayout, rows: readonly RowWrite[]): (string | null)[][] =>
  layout.scalars.map((_, i) => rows.map((r) => r.columns[i] ?? null));

/** Inserts `rows` (ids reserved beforehand) with their side-table values. */
export function insertStatements(layout: RowLayout, rows: readonly RowInsert[]): Sql[] {
  const { table, scalars } = layout;
  const columns = scalars.map((c) => `, ${c.column}`).join('');
  const casts = scalars.map((c, i) => `, u.c${i}::${c.type}`).join('');
  return [
    {
      sql:
        `INSERT INTO ${table}(id, name, parent, doc${columns}) OVERRIDING SYSTEM VALUE ` +
        `SELECT u.id, u.name, u.parent, u.doc::jsonb${casts} ` +
        `FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[]${columnArrays(layout)}) ` +
        `AS u(id, name, parent, doc${columnNames(layout)})`,
      params: [
        rows.map((r) => r.id),
        rows.map((r) => r.name),
        rows.map((r) => r.parent),
        rows.map((r) => r.text),
        ...columnValues(layout, rows),
      ],
    },
    ...multiInsert(layout, rows),
  ];
}

/** Writes `rows` over the stored ones: every column, and the side-table values of those whose values changed. */
export function updateStatements(layout: RowLayout, rows: readonly RowWrite[]): Sql[] {
  const { table, scalars } = layout;
  const sets = ['doc = u.doc::jsonb', ...scalars.map((c, i) => `${c.column} = u.c${i}::${c.type}`)].join(', ');
  const replaced = rows.filter((r) => r.multi !== undefined);
  return [
    {
      sql:
        `UPDATE ${table} SET ${sets} FROM unnest(?::bigint[], ?::text[]${columnArrays(layout)}) ` +
        `AS u(id, doc${columnNames(layout)}) WHERE ${table}.id = u.id`,
      params: [rows.map((r) => r.id), rows.map((r) => r.text), ...columnValues(layout, rows)],
    },
    ...(replaced.length === 0
      ? []
      : [
          {
            sql: `DELETE FROM ${layout.multiTable} WHERE row_id = ANY(?::bigint[])`,
            params: [replaced.map((r) => r.id)],
          },
          ...multiInsert(layout, replaced),
        ]),
  ];
}

function multiInsert(layout: RowLayout, rows: readonly RowWrite[]): Sql[] {
  const ids = rows.flatMap((r) => (r.multi?.paths ?? []).map(() => r.id));
  if (ids.length === 0) return [];
  return [
    {
      sql: `INSERT INTO ${layout.multiTable}(row_id, path, value) SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[])`,
      params: [ids, rows.flatMap((r) => r.multi?.paths ?? []), rows.flatMap((r) => r.multi?.values ?? [])],
    },
  ];
}
