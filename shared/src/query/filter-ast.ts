import type { ResolvedField } from './field-schema.js';

/**
 * A comparison value, already converted to the field's type: bools stay booleans (stored as 1/0 by SQLite),
 * timestamps are normalised to Date.toISOString() form, enums are their names.
 */
export type FilterValue = string | number | boolean;

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type FilterNode =
  | { kind: 'and'; children: FilterNode[] }
  | { kind: 'or'; children: FilterNode[] }
  | { kind: 'not'; child: FilterNode }
  | { kind: 'compare'; field: ResolvedField; op: CompareOp; value: FilterValue }
  /** `IS NULL`; `negated` for `IS NOT NULL` (also what `= null` / `!= null` become) */
  | { kind: 'isNull'; field: ResolvedField; negated: boolean }
  /** `IN (..)`; `negated` for `NOT IN (..)` */
  | { kind: 'in'; field: ResolvedField; values: FilterValue[]; negated: boolean }
  /** case-sensitive: `%` any run, `_` one character, `\` escapes the next character */
  | { kind: 'like'; field: ResolvedField; pattern: string }
  /** `CONTAINS v` and `CONTAINS ANY (..)` are 'any'; `CONTAINS ALL (..)` is 'all' */
  | { kind: 'contains'; field: ResolvedField; values: string[]; mode: 'any' | 'all' };

/** A parsed filter; `ast` null matches everything. */
export interface Filter {
  ast: FilterNode | null;
  text: string;
}
