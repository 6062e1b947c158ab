import { filterValueToSql, hasNameWildcard } from '@outpost/shared';
import type { CompareOp, Filter, FilterField, FilterNode, FilterValue } from '@outpost/shared';
import { likeToGlob } from './like-patterns.js';
import { NAME_MATCH_SQL_FUNCTION } from './sql-functions.js';
import type { SqlFragment } from './sql-fragment.js';

/** How one store lays out a resource's filterable fields. */
export interface SqlTarget {
  /**
   * SQL expression giving the stored JSON scalar for that path as json_extract() does (NULL when missing; bools
   * 1/0), e.g. an indexed generated column declared WITHOUT a type (so no affinity changes comparisons), or
   * json_extract for a map key. Also asked for non-leaf fields, only to test them against NULL.
   */
  scalar(field: FilterField, mapKey?: string): string;
  /**
   * SQL boolean, never NULL (EXISTS suits), for CONTAINS on 'labels' (value matched as labelContainsCandidates()
   * describes) or 'stringList' (membership).
   */
  contains(field: FilterField, value: string): SqlFragment;
  /** CONTAINS ANY of many values as one condition, when the store has a better way than an OR of `contains`. */
  containsAny?(field: FilterField, values: readonly string[]): SqlFragment;
  /** The SQL dialect of the store (SQLite's when absent). */
  dialect?: SqlDialect;
}

/** What differs between the SQL of two stores, for the conditions filterToSql() writes. */
export interface SqlDialect {
  /**
   * A never-NULL condition: `column` equals one `?` value (never null). SQLite `column IS ?`; PostgreSQL
   * `(column = ? AND column IS NOT NULL)`, which an index serves (IS NOT DISTINCT FROM is no index condition there).
   */
  equals(column: string): string;
  /** the constant conditions */
  true: string;
  false: string;
  /** A never-NULL condition: `column` is text matching the LIKE pattern case-sensitively (see likeMatches). */
  like(column: string, field: FilterField, mapKey: string | undefined, pattern: string): SqlFragment;
  /** A never-NULL condition: NAME_MATCH_SQL_FUNCTION of `column` and one `?` pattern. */
  nameMatch(column: string): string;
}

/** SQLite's: every condition is 0 or 1; LIKE runs as a GLOB (case-sensitive). */
export const SQLITE_DIALECT: SqlDialect = {
  equals: (column) => `${column} IS ?`,
  true: '1',
  false: '0',
  like: (column, _field, _mapKey, pattern) => ({
    sql: `(typeof(${column}) = 'text' AND ${column} GLOB ?)`,
    params: [likeToGlob(pattern)],
  }),
  nameMatch: (column) => `COALESCE(${NAME_MATCH_SQL_FUNCTION}(${column}, ?), 0)`,
};

const SQL_OPS: Readonly<Record<Exclude<CompareOp, '=' | '!='>, string>> = {
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/**
 * Compiles a filter to a WHERE condition whose every sub-expression is 0 or 1, never NULL, so NOT and != keep the
 * two-valued logic of evaluateFilter(). Ast null → `1`.
 */
export function filterToSql(filter: Filter, target: SqlTarget): SqlFragment {
  const dialect = target.dialect ?? SQLITE_DIALECT;
  return filter.ast === null ? { sql: dialect.true, params: [] } : nodeToSql(filter.ast, target, dialect);
}

function nodeToSql(node: FilterNode, target: SqlTarget, dialect: SqlDialect): SqlFragment {
  switch (node.kind) {
    case 'and':
    case 'or':
      return join(
        node.children.map((child) => nodeToSql(child, target, dialect)),
        node.kind === 'and' ? ' AND ' : ' OR ',
      );
    case 'not':
      return negate(nodeToSql(node.child, target, dialect));
    case 'isNull':
      return {
        sql: `(${target.scalar(node.field.field, node.field.mapKey)} IS ${node.negated ? 'NOT ' : ''}NULL)`,
        params: [],
      };
    case 'compare': {
      const column = target.scalar(node.field.field, node.field.mapKey);
      const isName = node.field.type === 'name';
      if (node.op === '=') return equalsSql(column, node.value, isName, dialect);
      if (node.op === '!=') return negate(equalsSql(column, node.value, isName, dialect));
      return {
        sql: `(${column} IS NOT NULL AND ${column} ${SQL_OPS[node.op]} ?)`,
        params: [filterValueToSql(node.value)],
      };
    }
    case 'in': {
      const column = target.scalar(node.field.field, node.field.mapKey);
      const isName = node.field.type === 'name';
      const patterns = node.values.filter((v): v is string => isName && typeof v === 'string' && hasNameWildcard(v));
      const exact = node.values.filter((v) => typeof v !== 'string' || !patterns.includes(v));
      const parts = patterns.map((pattern) => nameMatchFragment(column, pattern, dialect));
      if (exact.length > 0) {
        parts.unshift({
          sql: `(${column} IS NOT NULL AND ${column} IN (${exact.map(() => '?').join(', ')}))`,
          params: exact.map(filterValueToSql),
        });
      }
      const any = parts.length === 0 ? { sql: dialect.false, params: [] } : join(parts, ' OR ');
      return node.negated ? negate(any) : any;
    }
    case 'like': {
      const column = target.scalar(node.field.field, node.field.mapKey);
      return dialect.like(column, node.field.field, node.field.mapKey, node.pattern);
    }
    case 'contains': {
      if (node.values.length === 0) return { sql: node.mode === 'all' ? dialect.true : dialect.false, params: [] };
      if (node.mode === 'any' && node.values.length > 1 && target.containsAny) {
        return wrap(target.containsAny(node.field.field, node.values));
      }
      const parts = node.values.map((value) => wrap(target.contains(node.field.field, value)));
      return join(parts, node.mode === 'all' ? ' AND ' : ' OR ');
    }
  }
}

function equalsSql(column: string, value: FilterValue, isName: boolean, dialect: SqlDialect): SqlFragment {
  if (isName && typeof value === 'string' && hasNameWildcard(value)) return nameMatchFragment(column, value, dialect);
  return { sql: `(${dialect.equals(column)})`, params: [filterValueToSql(value)] };
}

function nameMatchFragment(column: string, pattern: string, dialect: SqlDialect): SqlFragment {
  return { sql: dialect.nameMatch(column), params: [pattern] };
}

function wrap(fragment: SqlFragment): SqlFragment {
  return { sql: `(${fragment.sql})`, params: fragment.params };
}

function negate(fragment: SqlFragment): SqlFragment {
  return { sql: `(NOT ${fragment.sql})`, params: fragment.params };
}

/** Longest chain of ANDs or ORs written flat; longer ones are split in halves. */
const FLAT_CHAIN = 16;

/**
 * SQLite nests a chain of N ANDs or ORs N deep and refuses expressions deeper than 1000, so long chains are
 * grouped in halves: the depth then grows with log2 N.
 */
function join(fragments: readonly SqlFragment[], separator: string): SqlFragment {
  if (fragments.length === 1 && fragments[0]) return fragments[0];
  if (fragments.length > FLAT_CHAIN) {
    const half = Math.ceil(fragments.length / 2);
    return join([join(fragments.slice(0, half), separator), join(fragments.slice(half), separator)], separator);
  }
  return {
    sql: `(${fragments.map((f) => f.sql).join(separator)})`,
    params: fragments.flatMap((f) => f.params),
  };
}
