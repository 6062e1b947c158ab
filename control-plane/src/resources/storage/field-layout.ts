import type { FilterField, FilterSchema } from '@outpost/shared';
import { columnOf, isMultiValued } from './sql/sql-columns.js';

/** A labels or list field: its values live in the table's side table, one row each. */
export interface MultiField {
  field: FilterField;
  keys: readonly string[];
}

/** A single-valued filter field other than the name: a column of its own. */
export interface ScalarField {
  field: FilterField;
  path: string;
  keys: readonly string[];
  column: string;
}

/** How every store lays out a kind's filter fields: side-table fields and column fields. */
export function fieldLayout(schema: FilterSchema): { multiFields: MultiField[]; scalars: ScalarField[] } {
  return {
    multiFields: schema.fields.filter(isMultiValued).map((field) => ({ field, keys: field.path.split('.') })),
    scalars: schema.fields
      .filter((field) => !isMultiValued(field) && field.path !== 'name')
      .map((field) => ({ field, path: field.path, keys: field.path.split('.'), column: columnOf(field) })),
  };
}
