import type { Filter, FilterValue } from '@outpost/shared';

/**
 * One condition of an engine query, in terms of a resource's filterable paths and names only: the store
 * compiles it (services never see how documents are laid out). Paths are the definition's filter paths.
 */
export type Condition =
  /** the scalar at `path` is exactly `value` (names compared as text, no wildcards) */
  | { kind: 'equals'; path: string; value: FilterValue }
  /** the scalar at `path` is one of `values` */
  | { kind: 'in'; path: string; values: readonly FilterValue[] }
  /** `path` holds a value (not missing, not null) */
  | { kind: 'present'; path: string }
  /** the labels or string list at `path` holds `value` */
  | { kind: 'contains'; path: string; value: string }
  /** directly under `parent` (a `-` segment matches any id, as in a list's parent) */
  | { kind: 'parent'; parent: string }
  /** directly under one of `parents` (exact names) */
  | { kind: 'parentIn'; parents: readonly string[] }
  /** a filter of the filter language, parsed against the resource's filter schema */
  | { kind: 'filter'; filter: Filter }
  | { kind: 'not'; condition: Condition }
  | { kind: 'anyOf'; conditions: readonly Condition[] };

/** One ordering key: a scalar filterable path ('name' included). */
export interface OrderKey {
  path: string;
  desc?: boolean;
}

/** What to read: the documents meeting every condition, in `orderBy` order (then by name), at most `limit`. */
export interface ResourceQuery {
  where?: readonly Condition[];
  orderBy?: readonly OrderKey[];
  limit?: number;
}

/** Constructors of conditions: `handle.list({ where: [where.equals('service', s), where.parent(p)] })`. */
export const where = {
  equals: (path: string, value: FilterValue): Condition => ({ kind: 'equals', path, value }),
  in: (path: string, values: readonly FilterValue[]): Condition => ({ kind: 'in', path, values }),
  present: (path: string): Condition => ({ kind: 'present', path }),
  contains: (path: string, value: string): Condition => ({ kind: 'contains', path, value }),
  parent: (parent: string): Condition => ({ kind: 'parent', parent }),
  parentIn: (parents: readonly string[]): Condition => ({ kind: 'parentIn', parents }),
  filter: (filter: Filter): Condition => ({ kind: 'filter', filter }),
  not: (condition: Condition): Condition => ({ kind: 'not', condition }),
  anyOf: (...conditions: Condition[]): Condition => ({ kind: 'anyOf', conditions }),
} as const;
