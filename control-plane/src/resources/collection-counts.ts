import { invalidArgument, isLeafType, isWildcardParent, nameMatches, parseFilter, resolveField } from '@outpost/shared';
import type { Filter, FilterValue, ResolvedField } from '@outpost/shared';
import type { ResourceHandle } from './resource-handle.js';
import { where, type Condition } from './resource-query.js';
import { encodeResumeToken } from './watch/resume-token.js';

/** Fields a counts request may tally by, named filters it may count, and distinct values per field at most. */
export const MAX_COUNT_FIELDS = 8;
export const MAX_NAMED_COUNTS = 32;
export const MAX_VALUES_LIMIT = 1000;
export const DEFAULT_MAX_VALUES = 100;
/** beyond this many parents under a wildcard's literal part, counts test the wildcard row by row */
const MAX_LISTED_PARENTS = 1000;
/** values of a field that no counted resource holds, passed over before `more` is answered */
const VALUES_PASSED_OVER = 1000;

export interface CollectionCountsRequest {
  parent: string;
  /** restricts every count (the filter language) */
  filter?: string;
  /** filterable scalar paths: how many resources hold each of their values */
  by?: readonly string[];
  /** at most this many distinct values per `by` field (in value order); `more` says when there are others */
  maxValues?: number;
  /** named filters: how many resources (within `filter`) pass each */
  counts?: Readonly<Record<string, string>>;
}

export type CountedValue = string | number | boolean | null;

export interface FieldCounts {
  field: string;
  /** the field's values with how many resources hold each; `null` counts the resources without the field */
  values: { value: CountedValue; count: number }[];
  /** true when more distinct values exist than `maxValues` (their resources are in no entry) */
  more: boolean;
}

export interface CollectionCounts {
  total: number;
  byField: FieldCounts[];
  counts: Record<string, number>;
  /**
   * The change-log position read before counting: a stateless watch resumed from it sends every change the counts
   * may not show (and perhaps some they do), so a client re-counts on what it sends instead of on a snapshot.
   */
  resumeToken: string;
}

/**
 * How many resources of a collection (`parent`, `-` segments allowed, and `filter`) there are, how many hold each
 * value of some filterable fields, and how many pass some named filters, counted by the store over its indexed
 * columns: no document is read. The distinct values of a field are found one index seek each (the next value
 * after the last), so the cost grows with the values and the matching index entries, not with document sizes.
 */
export function countCollection(handle: ResourceHandle, req: CollectionCountsRequest): CollectionCounts {
  handle.patternOfParent(req.parent, true);
  const schema = handle.def.filterSchema;
  const by = [...new Set(req.by ?? [])];
  if (by.length > MAX_COUNT_FIELDS) throw invalidArgument(`by: at most ${MAX_COUNT_FIELDS} fields`);
  const fields = by.map((path) => countableField(handle, path));
  const named = Object.entries(req.counts ?? {});
  if (named.length > MAX_NAMED_COUNTS) throw invalidArgument(`count: at most ${MAX_NAMED_COUNTS} named filters`);
  for (const [id] of named) {
    if (!/^[A-Za-z][A-Za-z0-9]{0,62}$/.test(id)) {
      throw invalidArgument(`count.${id}: a count's name is a letter, then letters or digits (at most 63 in all)`);
    }
  }
  const namedFilters = named.map(([id, text]) => [id, parseNamed(`count.${id}`, text, schema)] as const);
  const maxValues = req.maxValues ?? DEFAULT_MAX_VALUES;
  if (!Number.isInteger(maxValues) || maxValues < 1 || maxValues > MAX_VALUES_LIMIT) {
    throw invalidArgument(`maxValues must be an integer from 1 to ${MAX_VALUES_LIMIT}`);
  }
  const base: Condition[] = [
    parentCondition(handle, req.parent),
    where.filter(parseNamed('filter', req.filter ?? '', schema)),
  ];
  // read first: a change committed while counting is then after the position, and a watcher hears of it
  const resumeToken = encodeResumeToken(handle.engineLog.head());
  return {
    total: handle.count({ where: base }),
    byField: fields.map((field) => countValues(handle, base, field, maxValues)),
    counts: Object.fromEntries(
      namedFilters.map(([id, filter]) => [id, handle.count({ where: [...base, where.filter(filter)] })]),
    ),
    resumeToken,
  };
}

/**
 * The resources under `parent`. A `-` wildcard is tested row by row (a function call per row a count visits),
 * which at 100,000 devices costs a second per count; the parents it matches are few (the regions), and an exact
 * list of them lets every count run on the indexes of its fields. They are found in the parent index, one seek
 * each, among the parents that begin with the wildcard's literal part.
 */
function parentCondition(handle: ResourceHandle, parent: string): Condition {
  if (!isWildcardParent(parent)) return where.parent(parent);
  const pattern = handle.patternOfParent(parent, true);
  const prefix = pattern.literalPrefix(parent);
  const parents: string[] = [];
  let after = prefix;
  for (let seen = 0; seen <= MAX_LISTED_PARENTS; seen++) {
    const next = handle.table.query({
      where: [],
      keys: [{ key: 'parent', desc: false }],
      seek: { values: [after], before: false },
      limit: 1,
    });
    after = String(next[0]?.keyValues[0] ?? '');
    if (next.length === 0 || !after.startsWith(prefix)) return where.parentIn(parents);
    if (nameMatches(parent, after)) parents.push(after);
  }
  return where.parent(parent);
}

/** The filter, or INVALID_ARGUMENT naming the parameter it came in (`filter: …` or `count.NAME: …`). */
function parseNamed(what: string, text: string, schema: ResourceHandle['def']['filterSchema']): Filter {
  try {
    return parseFilter(text, schema);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw invalidArgument(`${what}: ${message.replace(/^filter: /, '')}`);
  }
}

/** A scalar field with a column of its own (names are unique, label keys have no column: both refused). */
function countableField(handle: ResourceHandle, path: string): ResolvedField {
  const field = resolveField(handle.def.filterSchema, path);
  if (!field) throw invalidArgument(`by: unknown field "${path}" of ${handle.def.plural}`);
  if (field.mapKey !== undefined || !isLeafType(field.type) || field.type === 'name') {
    throw invalidArgument(`by: ${handle.def.plural} cannot be counted by "${path}" (not a single-valued field)`);
  }
  return field;
}

function countValues(
  handle: ResourceHandle,
  base: readonly Condition[],
  field: ResolvedField,
  maxValues: number,
): FieldCounts {
  const values: FieldCounts['values'] = [];
  const absent = handle.count({ where: [...base, where.filter(isNull(field))] });
  if (absent > 0) values.push({ value: null, count: absent });
  const countOf = (value: FilterValue): number => handle.count({ where: [...base, where.equals(field.path, value)] });
  if (field.type === 'bool') {
    for (const value of [false, true].slice(0, maxValues)) {
      const count = countOf(value);
      if (count > 0) values.push({ value, count });
    }
    return { field: field.path, values, more: maxValues < 2 && countOf(true) > 0 };
  }
  // the next value is sought in the field's index alone, over every parent (a condition on the parent or the
  // filter would have the store read the parent's rows and sort them instead): values no resource here holds
  // count 0 and are passed over, at most VALUES_PASSED_OVER of them
  const present = handle.tableQuery({ where: [where.present(field.path)] }).where;
  const key = { path: field.path, desc: false };
  let after: unknown;
  let counted = 0;
  for (let passed = 0; passed <= VALUES_PASSED_OVER;) {
    const next = handle.table.query({
      where: present,
      keys: [key],
      ...(after === undefined ? {} : { seek: { values: [after], before: false } }),
      limit: 1,
    });
    if (next.length === 0) return { field: field.path, values, more: false };
    after = next[0]!.keyValues[0];
    const value = filterValueOf(field, after);
    const count = countOf(value);
    if (count === 0) {
      passed++;
      continue;
    }
    if (counted === maxValues) return { field: field.path, values, more: true };
    values.push({ value, count });
    counted++;
  }
  return { field: field.path, values, more: true };
}

/** `field IS NULL` as a parsed filter (the store's index serves it; the negation of `where.present` it does not). */
function isNull(field: ResolvedField): Filter {
  return { ast: { kind: 'isNull', field, negated: false }, text: '' };
}

/** A value as the store's sort key gives it, as the filter language writes it. */
function filterValueOf(field: ResolvedField, key: unknown): FilterValue {
  if (typeof key === 'number' || typeof key === 'string' || typeof key === 'boolean') return key;
  throw new Error(`unexpected sort key ${String(key)} of ${field.path}`);
}
