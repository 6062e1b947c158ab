import type { ColumnType } from './pg-sql.js';
import type { Sql } from './pg-write-queue.js';

/** Where a kind's rows live: its table, its side table of multi values, and its typed columns in order. */
export interface RowLayout {
  table: string;
  multiTable: string;
  scalars: readonly { column: string; type: ColumnType }[];
}

/** The side-table values of a row: one (path, value) pair each, kept with the row's name. */
export interface MultiValues {
  paths: string[];
  values: string[];
  name: string;
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
 * Each statement takes its rows as one JSON array parameter (jsonb_to_recordset): one statement writes any number
 * of rows, its text (which the connection prepares once) does not depend on how many, and the documents, already
 * JSON, go into it as they are: no array literal to escape them into, and one string to hand to the driver.
 */

/** The record the rows' JSON is read as: `extra` columns, then the document, then each scalar as text. */
const recordOf = (layout: RowLayout, extra: string): string =>
  `jsonb_to_recordset(?::jsonb) AS u(${extra}, doc jsonb${layout.scalars.map((_, i) => `, c${i} text`).join('')})`;

/** The rows as one JSON array of records; `extra` gives each record's members before its document. */
function rowsJson<R extends RowWrite>(rows: readonly R[], extra: (row: R) => string): string {
  let json = '[';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    json += `${r === 0 ? '' : ','}{${extra(row)},"doc":${row.text}`;
    for (let i = 0; i < row.columns.length; i++) {
      const value = row.columns[i];
      // a member left out is NULL
      if (value !== null && value !== undefined) json += `,"c${i}":${JSON.stringify(value)}`;
    }
    json += '}';
  }
  return json + ']';
}

/** Inserts `rows` (ids reserved beforehand) with their side-table values. */
export function insertStatements(layout: RowLayout, rows: readonly RowInsert[]): Sql[] {
  const { table, scalars } = layout;
  const columns = scalars.map((c) => `, ${c.column}`).join('');
  const casts = scalars.map((c, i) => `, u.c${i}::${c.type}`).join('');
  return [
    {
      sql:
        `INSERT INTO ${table}(id, name, parent, doc${columns}) OVERRIDING SYSTEM VALUE ` +
        `SELECT u.id, u.name, u.parent, u.doc${casts} FROM ${recordOf(layout, 'id bigint, name text, parent text')}`,
      params: [
        rowsJson(rows, (r) => `"id":${r.id},"name":${JSON.stringify(r.name)},"parent":${JSON.stringify(r.parent)}`),
      ],
    },
    ...multiInsert(layout, rows),
  ];
}

/** Writes `rows` over the stored ones: every column, and the side-table values of those whose values changed. */
export function updateStatements(layout: RowLayout, rows: readonly RowWrite[]): Sql[] {
  const { table, scalars } = layout;
  const sets = ['doc = u.doc', ...scalars.map((c, i) => `${c.column} = u.c${i}::${c.type}`)].join(', ');
  const replaced = rows.filter((r) => r.multi !== undefined);
  return [
    {
      sql: `UPDATE ${table} SET ${sets} FROM ${recordOf(layout, 'id bigint')} WHERE ${table}.id = u.id`,
      params: [rowsJson(rows, (r) => `"id":${r.id}`)],
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
  // each with its row's name, which a list by one value reads in order (see valueDrivenRead)
  const names = rows.flatMap((r) => (r.multi?.paths ?? []).map(() => r.multi!.name));
  return [
    {
      sql: `INSERT INTO ${layout.multiTable}(row_id, path, value, row_name) SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[])`,
      params: [ids, rows.flatMap((r) => r.multi?.paths ?? []), rows.flatMap((r) => r.multi?.values ?? []), names],
    },
  ];
}
