import { seekCondition } from './row-values.js';
import type { SqlFragment, SqlKey } from './sql/sql-fragment.js';

/** The alias of the side table when a list is read in the order of its index (see valueDrivenRead). */
const DRIVING = 'driving';

/** Where a list filtered by one side-table value starts reading: the tables it joins and what it adds to WHERE. */
export interface ValueDrivenRead {
  /** the FROM clause: the side table's matching rows joined to the kind's rows */
  from: string;
  /** conditions on the side table, the index's columns in order, the seek included */
  conditions: string[];
  params: unknown[];
  /** the list's other conditions, for the kind's rows (the `CONTAINS` read from the index left out) */
  rest: SqlFragment[];
  /** the sort key to select and order by: the side table's copy of the name, in its index's order */
  keys: SqlKey[];
}

/** The tables and the SQL of one kind's `CONTAINS` (see the stores' sqlTarget.contains), in one store's dialect. */
export interface ValueDrivenTables {
  table: string;
  multiTable: string;
  /** the SQL of one `CONTAINS` value, whose parameters are the path and the value */
  containsSql: string;
  /** the store's null-safe equality (SQLite `IS`, PostgreSQL `IS NOT DISTINCT FROM`) */
  same: string;
}

/**
 * A list in name order whose filter is, at its top level, one `CONTAINS` of a label or list value is read from
 * the side table's index on (path, value, row_name) that also holds row_id, which keeps each value's rows in
 * name order: a page costs its own rows, however many or few rows carry the value. Walking the names instead and
 * probing the side table per row costs ten probes per row listed for a value one row in ten carries, and every
 * row of the table for a value only a few carry (a generic plan, as prepared statements soon get, cannot tell
 * the two). So is the count of such a list's rows, before a position or in all (no keys: a total). Undefined when
 * the read is another shape. The list's other conditions (the parent, the filter's other terms) still apply to
 * the joined rows; its seek applies to the side table's names.
 */
export function valueDrivenRead(
  tables: ValueDrivenTables,
  where: readonly SqlFragment[],
  keys: readonly SqlKey[],
  seek: { values: unknown[]; before: boolean; inclusive?: boolean } | undefined,
): ValueDrivenRead | undefined {
  // in name order, or a total, which counts in no order (a seek needs the name to seek on)
  const byName = keys.length === 1 && keys[0]!.sql === 'name';
  if (!byName && (keys.length > 0 || seek)) return undefined;
  const driving = where.find((w) => unwrapped(w.sql) === tables.containsSql && w.params.length === 2);
  if (!driving) return undefined;
  const [path, value] = driving.params;
  const conditions = [`${DRIVING}.path = ?`, `${DRIVING}.value = ?`];
  const params: unknown[] = [path, value];
  // the names under a parent are those from `parent/` up to `parent0` ('0' follows '/' in byte order)
  const parent = where.find((w) => unwrapped(w.sql) === 'parent = ?' && w.params.length === 1)?.params[0];
  const range = typeof parent === 'string' && parent !== '' ? { after: `${parent}/`, before: `${parent}0` } : undefined;
  const drivingKeys = keys.map((key) => ({ sql: `${DRIVING}.row_name`, desc: key.desc }));
  // A seek inside the parent's names replaces the parent's bound on its side: SQLite bounds an index range by one
  // condition a side, and would take the parent's and test the seek on every name from the parent's first.
  const position = seek?.values[0];
  const inside =
    range !== undefined &&
    typeof position === 'string' &&
    bytewise(range.after, position) < 0 &&
    bytewise(position, range.before) < 0;
  // the side of the position the seek reads: the names after it (greater) or before it
  const seekSide = seek && inside ? (keys[0]!.desc === seek.before ? 'after' : 'before') : undefined;
  if (range && seekSide !== 'after') {
    conditions.push(`${DRIVING}.row_name > ?`);
    params.push(range.after);
  }
  if (range && seekSide !== 'before') {
    conditions.push(`${DRIVING}.row_name < ?`);
    params.push(range.before);
  }
  if (seek) {
    const s = seekCondition(drivingKeys, seek.values, seek.before, tables.same, seek.inclusive);
    conditions.push(s.sql);
    params.push(...s.params);
  }
  const { table, multiTable } = tables;
  return {
    // ordered by the side table's copy of the name only: were the tables joined on the names too, the store
    // could walk the kind's names instead and probe the side table per row, the plan this replaces
    from: `${multiTable} ${DRIVING} JOIN ${table} ON ${table}.id = ${DRIVING}.row_id`,
    keys: drivingKeys,
    conditions,
    params,
    rest: where.filter((w) => w !== driving),
  };
}

/** Names compared as the stores order them: by their UTF-8 bytes (SQLite's BINARY, PostgreSQL's "C"). */
function bytewise(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The SQL inside any parentheses that enclose all of it. */
function unwrapped(sql: string): string {
  let s = sql.trim();
  while (s.startsWith('(') && closingOf(s) === s.length - 1) s = s.slice(1, -1).trim();
  return s;
}

/** The index of the parenthesis that closes the one at 0. */
function closingOf(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** What a read of one kind selects from: the FROM clause, the keys to order by, the conditions and their parameters. */
export interface TableRead {
  from: string;
  keys: readonly SqlKey[];
  conditions: string[];
  params: unknown[];
}

/**
 * The read of a list (or a count) on either store: from the side table's index when it gives the order (see
 * valueDrivenRead), else from the kind's table with the seek on `keys`.
 */
export function tableRead(
  tables: ValueDrivenTables,
  multiValued: boolean,
  where: readonly SqlFragment[],
  keys: readonly SqlKey[],
  seek: { values: unknown[]; before: boolean; inclusive?: boolean } | undefined,
): TableRead {
  const driven = multiValued ? valueDrivenRead(tables, where, keys, seek) : undefined;
  const own = (fragments: readonly SqlFragment[]): { conditions: string[]; params: unknown[] } => ({
    conditions: fragments.map((w) => `(${w.sql})`),
    params: fragments.flatMap((w) => w.params),
  });
  if (!driven) {
    const { conditions, params } = own(where);
    if (seek) {
      const s = seekCondition(keys, seek.values, seek.before, tables.same, seek.inclusive);
      conditions.push(s.sql);
      params.push(...s.params);
    }
    return { from: tables.table, keys, conditions, params };
  }
  const rest = own(driven.rest);
  return {
    from: driven.from,
    keys: driven.keys,
    conditions: [...driven.conditions, ...rest.conditions],
    params: [...driven.params, ...rest.params],
  };
}
