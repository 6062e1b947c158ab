import { isWildcardParent } from '@outpost/shared';
import type { Filter, NamePattern } from '@outpost/shared';
import type { Condition, ResourceQuery } from './resource-query.js';
import type { SortKey, TableCondition, TableQuery } from './resource-table.js';

/** Finds the name pattern of a parent of the kind (throwing when the parent is no parent of it). */
export type PatternOfParent = (parent: string, allowWildcards: boolean) => NamePattern;

/** An engine query as the kind's table takes it (see TableQuery); conditions every row meets are left out. */
export function tableQueryOf(patternOfParent: PatternOfParent, query: ResourceQuery): TableQuery {
  const where = (query.where ?? []).filter((condition) => !holdsForEveryRow(condition));
  return {
    where: where.map((condition) => tableCondition(patternOfParent, condition)),
    keys: sortKeys(query),
    ...(query.limit !== undefined ? { limit: query.limit } : {}),
  };
}

export function tableCondition(patternOfParent: PatternOfParent, condition: Condition): TableCondition {
  switch (condition.kind) {
    case 'parent':
      return isWildcardParent(condition.parent) ? parentMatch(patternOfParent, condition.parent) : condition;
    case 'not':
      return { kind: 'not', condition: tableCondition(patternOfParent, condition.condition) };
    case 'anyOf':
      return { kind: 'anyOf', conditions: condition.conditions.map((c) => tableCondition(patternOfParent, c)) };
    default:
      return condition;
  }
}

/** Under a parent with `-` segments: among the names that start with its literal part. */
export function parentMatch(patternOfParent: PatternOfParent, parent: string): TableCondition {
  return { kind: 'parentMatch', parent, namePrefix: patternOfParent(parent, true).literalPrefix(parent) };
}

/** An empty filter, or one whose only term is a CONTAINS ALL of no values. */
function holdsForEveryRow(condition: Condition): boolean {
  return condition.kind === 'filter' && isTrue(condition.filter);
}

const isTrue = (filter: Filter): boolean =>
  filter.ast === null ||
  (filter.ast.kind === 'contains' && filter.ast.mode === 'all' && filter.ast.values.length === 0);

/** Each path sorts rows without a value first (asc) through its presence key; name breaks ties: a total order. */
export function sortKeys(query: Pick<ResourceQuery, 'orderBy'>): SortKey[] {
  const keys: SortKey[] = [];
  let nameDesc = false;
  for (const key of query.orderBy ?? []) {
    const desc = key.desc ?? false;
    if (key.path === 'name') {
      nameDesc = desc;
      continue; // as a list's order_by: name is always the last key
    }
    keys.push({ path: key.path, present: true, desc }, { path: key.path, desc });
  }
  keys.push({ key: 'name', desc: nameDesc });
  return keys;
}
