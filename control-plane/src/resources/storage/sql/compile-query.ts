import { isWildcardParent, resolveField } from '@outpost/shared';
import type { FilterNode, FilterSchema, ResolvedField } from '@outpost/shared';
import type { SortKey, TableCondition } from '../../resource-table.js';
import { SQLITE_DIALECT, filterToSql } from './filter-to-sql.js';
import type { SqlDialect, SqlTarget } from './filter-to-sql.js';
import type { SqlFragment, SqlKey } from './sql-fragment.js';
import { NAME_MATCH_SQL_FUNCTION } from './sql-functions.js';

/** What compiling a table's conditions and sort keys needs: its kind's filter paths, how its store addresses them. */
export interface QueryTarget {
  plural: string;
  filterSchema: FilterSchema;
  sql: SqlTarget;
  /**
   * Whether a condition that holds for every row is still sent (PostgreSQL's lists have always sent an empty
   * filter as `TRUE`); otherwise it is left out of WHERE. The engine leaves out its own before (see table-query.ts).
   */
  sendsConstantTrue?: boolean;
}

/** A table's conditions in its store's SQL, one fragment each (ANDed by the statement). */
export function compileWhere(target: QueryTarget, conditions: readonly TableCondition[]): SqlFragment[] {
  const compiled = conditions.map((condition) => compileCondition(target, condition));
  if (target.sendsConstantTrue) return compiled;
  return compiled.filter((fragment) => fragment.sql !== dialectOf(target).true);
}

function compileCondition(target: QueryTarget, condition: TableCondition): SqlFragment {
  switch (condition.kind) {
    case 'parent':
      if (isWildcardParent(condition.parent)) throw new Error(`a parent with wildcards is a parentMatch condition`);
      return { sql: 'parent = ?', params: [condition.parent] };
    case 'parentMatch':
      return {
        sql: `name >= ? AND name < ? AND ${NAME_MATCH_SQL_FUNCTION}(parent, ?)`,
        params: [condition.namePrefix, condition.namePrefix + '\uffff', condition.parent],
      };
    case 'parentIn': {
      const parents = [...new Set(condition.parents)];
      if (parents.length === 0) return { sql: dialectOf(target).false, params: [] };
      return { sql: `parent IN (${parents.map(() => '?').join(', ')})`, params: parents };
    }
    case 'filter':
      return filterToSql(condition.filter, target.sql);
    case 'not': {
      const inner = compileCondition(target, condition.condition);
      return { sql: `(NOT (${inner.sql}))`, params: inner.params };
    }
    case 'anyOf': {
      if (condition.conditions.length === 0) return { sql: dialectOf(target).false, params: [] };
      const parts = condition.conditions.map((c) => compileCondition(target, c));
      return { sql: `(${parts.map((p) => `(${p.sql})`).join(' OR ')})`, params: parts.flatMap((p) => p.params) };
    }
    default:
      return filterToSql({ ast: fieldNode(target, condition), text: '' }, target.sql);
  }
}

/** The store's constants and operators (SQLite's unless its target says otherwise): `0` is no boolean to PostgreSQL. */
function dialectOf(target: QueryTarget): SqlDialect {
  return target.sql.dialect ?? SQLITE_DIALECT;
}

type FieldCondition = Extract<TableCondition, { path: string }>;

function fieldNode(target: QueryTarget, condition: FieldCondition): FilterNode {
  const resolved = fieldOf(target, condition.path);
  // a structured condition compares names exactly: no '-' wildcards
  const field: ResolvedField = resolved.type === 'name' ? { ...resolved, type: 'string' } : resolved;
  switch (condition.kind) {
    case 'equals':
      return { kind: 'compare', field, op: '=', value: condition.value };
    case 'in':
      return { kind: 'in', field, values: [...condition.values], negated: false };
    case 'present':
      return { kind: 'isNull', field, negated: true };
    case 'contains':
      return { kind: 'contains', field, values: [condition.value], mode: 'any' };
  }
}

function fieldOf(target: QueryTarget, path: string): ResolvedField {
  const field = resolveField(target.filterSchema, path);
  if (!field) throw new Error(`${target.plural} cannot be queried by ${path}: it is no filter path`);
  return field;
}

/** The sort keys in the store's SQL: a path's presence as `(column IS NOT NULL)`, 1 or 0, and its value as its column. */
export function compileKeys(target: QueryTarget, keys: readonly SortKey[]): SqlKey[] {
  return keys.map((key) => {
    if ('key' in key) return { sql: key.key, desc: key.desc };
    const column = target.sql.scalar(fieldOf(target, key.path).field);
    return { sql: key.present ? `(${column} IS NOT NULL)` : column, desc: key.desc };
  });
}
