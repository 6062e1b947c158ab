import type { ResolvedField } from './field-schema.js';
import type { Filter, FilterNode, FilterValue } from './filter-ast.js';
import { isPlainObject, labelsContain, listContains } from './collection-contains.js';
import { likeMatches } from './like.js';
import { hasNameWildcard, nameMatches } from './name-match.js';
import { compareSqlScalars, filterValueToSql, toSqlScalar, type SqlScalar } from './sql-value.js';

/** Whether a resource (its lowerCamel JSON document) passes the filter; agrees exactly with the stores' SQL (the control plane's storage/sql). */
export function evaluateFilter(filter: Filter, resource: unknown): boolean {
  return filter.ast === null || evaluateNode(filter.ast, resource);
}

function evaluateNode(node: FilterNode, resource: unknown): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every((child) => evaluateNode(child, resource));
    case 'or':
      return node.children.some((child) => evaluateNode(child, resource));
    case 'not':
      return !evaluateNode(node.child, resource);
    case 'isNull':
      return (scalarAt(resource, node.field) === null) !== node.negated;
    case 'compare': {
      const actual = scalarAt(resource, node.field);
      if (node.op === '=') return equals(node.field, actual, node.value);
      if (node.op === '!=') return !equals(node.field, actual, node.value);
      if (actual === null) return false;
      const order = compareSqlScalars(actual, filterValueToSql(node.value));
      if (node.op === '<') return order < 0;
      if (node.op === '<=') return order <= 0;
      if (node.op === '>') return order > 0;
      return order >= 0;
    }
    case 'in': {
      const actual = scalarAt(resource, node.field);
      return node.values.some((value) => equals(node.field, actual, value)) !== node.negated;
    }
    case 'like': {
      const actual = scalarAt(resource, node.field);
      return typeof actual === 'string' && likeMatches(node.pattern, actual);
    }
    case 'contains': {
      const collection = valueAt(resource, node.field.field.path.split('.'));
      const test = node.field.type === 'labels' ? labelsContain : listContains;
      const has = (value: string): boolean => test(collection, value);
      return node.mode === 'all' ? node.values.every(has) : node.values.some(has);
    }
  }
}

function equals(field: ResolvedField, actual: SqlScalar, value: FilterValue): boolean {
  if (actual === null) return false;
  if (field.type === 'name' && typeof value === 'string' && hasNameWildcard(value)) {
    return typeof actual === 'string' && nameMatches(value, actual);
  }
  return compareSqlScalars(actual, filterValueToSql(value)) === 0;
}

function scalarAt(resource: unknown, field: ResolvedField): SqlScalar {
  const fieldValue = valueAt(resource, field.field.path.split('.'));
  if (field.mapKey === undefined) return toSqlScalar(fieldValue);
  const entry = isPlainObject(fieldValue) && Object.hasOwn(fieldValue, field.mapKey) ? fieldValue[field.mapKey] : null;
  return toSqlScalar(entry);
}

function valueAt(resource: unknown, segments: readonly string[]): unknown {
  let current = resource;
  for (const segment of segments) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}
