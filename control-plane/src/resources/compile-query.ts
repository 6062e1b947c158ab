import { NAME_MATCH_SQL_FUNCTION, SQLITE_DIALECT, filterToSql, isWildcardParent, resolveField } from '@outpost/shared';
import type { FilterNode, ResolvedField, SqlDialect, SqlFragment, SqlTarget } from '@outpost/shared';
import type { NamePattern, ResourceDefinition } from '@outpost/shared';
import type { Condition, ResourceQuery } from './resource-query.js';
import type { SortKey, TableQuery } from './resource-table.js';

/** What compiling a query needs of its resource: the definition, how the store addresses fields, parents. */
export interface QueryTarget {
  def: ResourceDefinition;
  sqlTarget: SqlTarget;
  patternOfParent(parent: string, allowWildcards: boolean): NamePattern;
}

/** An engine query as the table reads it, through the table's own way of addressing fields. */
export function compileQuery(target: QueryTarget, query: ResourceQuery): TableQuery {
  const where = (query.where ?? []).map((condition) => compileCondition(target, condition));
  return {
    where: where.filter((fragment) => fragment.sql !== dialectOf(target).true),
    keys: sortKeys(target, query),
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
  };
}

function compileCondition(target: QueryTarget, condition: Condition): SqlFragment {
  switch (condition.kind) {
    case 'parent':
      return parentCondition(target, condition.parent);
    case 'parentIn': {
      const parents = [...new Set(condition.parents)];
      if (parents.length === 0) return { sql: dialectOf(target).false, params: [] };
      return { sql: `parent IN (${parents.map(() => '?').join(', ')})`, params: parents };
    }
    case 'filter':
      return filterToSql(condition.filter, target.sqlTarget);
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
      return filterToSql({ ast: fieldNode(target, condition), text: '' }, target.sqlTarget);
  }
}

/** The store's constants and operators (SQLite's unless its target says otherwise): `0` is no boolean to PostgreSQL. */
function dialectOf(target: QueryTarget): SqlDialect {
  return target.sqlTarget.dialect ?? SQLITE_DIALECT;
}

function parentCondition(target: QueryTarget, parent: string): SqlFragment {
  if (!isWildcardParent(parent)) return { sql: 'parent = ?', params: [parent] };
  const prefix = target.patternOfParent(parent, true).literalPrefix(parent);
  return {
    sql: `name >= ? AND name < ? AND ${NAME_MATCH_SQL_FUNCTION}(parent, ?)`,
    params: [prefix, prefix + '\uffff', parent],
  };
}

type FieldCondition = Extract<Condition, { path: string }>;

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
  const field = resolveField(target.def.filterSchema, path);
  if (!field) throw new Error(`${target.def.plural} cannot be queried by ${path}: it is no filter path`);
  return field;
}

/** Each key sorts nulls first (asc) through a null-flag key; name breaks ties, so the order is total. */
function sortKeys(target: QueryTarget, query: ResourceQuery): SortKey[] {
  const keys: SortKey[] = [];
  let nameDesc = false;
  for (const key of query.orderBy ?? []) {
    if (key.path === 'name') {
      nameDesc = key.desc ?? false;
      continue; // as a list's order_by: name is always the last key
    }
    const column = target.sqlTarget.scalar(fieldOf(target, key.path).field);
    keys.push({ sql: `(${column} IS NOT NULL)`, desc: key.desc ?? false }, { sql: column, desc: key.desc ?? false });
  }
  keys.push({ sql: 'name', desc: nameDesc });
  return keys;
}
