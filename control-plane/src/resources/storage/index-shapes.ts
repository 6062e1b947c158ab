import type { FilterField } from '@outpost/shared';

/** How a filterable column is indexed: the same shapes on every store, so a filter is served alike. */
export interface IndexShape {
  name(table: string, column: string): string;
  columns(column: string): string;
}

/**
 * Equality on the column and the parent, then in name order: a filtered page and its counts in one range.
 * For names, strings, enums and booleans, which filters compare for equality.
 */
export const IN_PARENT: IndexShape = {
  name: (table, column) => `${table}_by_${column}_in_parent`,
  columns: (column) => `${column}, parent, name`,
};

/**
 * The column alone: for numbers and timestamps, which filters mostly compare as ranges (a page of a range
 * needs a sort by name either way). Its entries are a fraction of the size, so the writes that change such values
 * cost much less.
 */
export const BY_VALUE: IndexShape = {
  name: (table, column) => `${table}_by_${column}`,
  columns: (column) => column,
};

export const INDEX_SHAPES: readonly IndexShape[] = [IN_PARENT, BY_VALUE];

/**
 * How a filterable column is indexed; undefined when its field says `indexed: false` (a value writes move on many
 * documents: each index on a column a write changes costs the write an entry in it, and on PostgreSQL an entry in
 * every other index too, since only an update that changes no indexed column is heap-only).
 */
export function indexShapeOf(field: FilterField): IndexShape | undefined {
  if (field.indexed === false) return undefined;
  return field.type === 'int' || field.type === 'double' || field.type === 'timestamp' ? BY_VALUE : IN_PARENT;
}
