import { createHash } from 'node:crypto';
import type { FilterField } from '@outpost/shared';
import type { SqlDialect } from '../sql/filter-to-sql.js';
import { likeToPostgres } from '../sql/like-patterns.js';
import { NAME_MATCH_SQL_FUNCTION } from '../sql/sql-functions.js';

const converted = new Map<string, string>();

/**
 * The engine writes `?` parameters (as SQLite takes them); PostgreSQL numbers them: `$1`, `$2`... A `?` inside a
 * quoted literal or identifier is left alone.
 */
export function numberedParams(sql: string): string {
  let out = converted.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let quote: string | undefined;
  out = '';
  for (const c of sql) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else out += c === '?' ? `$${++n}` : c;
  }
  if (converted.size > 5000) converted.clear();
  converted.set(sql, out);
  return out;
}

/** PostgreSQL cuts identifiers at 63 bytes: longer names are shortened with a hash, so two never collide. */
export function identifier(name: string): string {
  if (Buffer.byteLength(name) <= 63) return name;
  return `${name.slice(0, 48)}_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

/** SQL string literal. */
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The JSON text at a path of the `doc` column (NULL when missing or JSON null), in byte order like SQLite's. */
export function jsonTextAt(path: readonly string[]): string {
  return `((doc #>> ARRAY[${path.map(literal).join(', ')}]::text[]) COLLATE "C")`;
}

/** How a scalar filterable path's column is typed: SQLite's json_extract values, each in one PostgreSQL type. */
export type ColumnType = 'numeric' | 'integer' | 'text';

export function columnTypeOf(field: FilterField): ColumnType {
  if (field.type === 'int' || field.type === 'double') return 'numeric';
  if (field.type === 'bool') return 'integer';
  return 'text';
}

export const columnDeclaration = (type: ColumnType): string => (type === 'text' ? 'text COLLATE "C"' : type);

/**
 * The column value of a JSON value, as json_extract gives it in SQLite: bools 1/0, objects and arrays as JSON
 * text. A value of another type than the column's (a document the schema did not check) is stored as NULL.
 */
export function columnValueOf(type: ColumnType, value: unknown): string | number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return type === 'text' ? null : value ? 1 : 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    if (type === 'integer') return Number.isInteger(value) ? value : null;
    return type === 'numeric' ? value : null;
  }
  if (type !== 'text') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** PostgreSQL's SQL for filterToSql(): boolean conditions, indexable equality, LIKE on text columns only. */
export const POSTGRES_DIALECT: SqlDialect = {
  equals: (column) => `(${column} = ? AND ${column} IS NOT NULL)`,
  true: 'TRUE',
  false: 'FALSE',
  like: (column, field, mapKey, pattern) =>
    mapKey !== undefined || columnTypeOf(field) === 'text'
      ? { sql: `COALESCE(${column} LIKE ?, FALSE)`, params: [likeToPostgres(pattern)] }
      : { sql: 'FALSE', params: [] },
  nameMatch: (column) => `COALESCE(${NAME_MATCH_SQL_FUNCTION}(${column}, ?), FALSE)`,
};
