import { invalidArgument } from '../errors/api-error.js';
import { isLeafType, resolveField, type FilterField, type FilterSchema } from './field-schema.js';

export interface OrderTerm {
  field: FilterField;
  desc: boolean;
}

/** `"a desc, b"` → terms; paths snake_case or lowerCamel; only scalar leaf fields; no field twice. */
export function parseOrderBy(text: string | undefined, schema: FilterSchema): OrderTerm[] {
  if (text === undefined || text.trim() === '') return [];
  const terms: OrderTerm[] = [];
  for (const rawTerm of text.split(',')) {
    const words = rawTerm.trim().split(/\s+/);
    const [path, direction, ...extra] = words;
    if (!path) throw invalidArgument(`order_by: empty term in "${text}"`);
    if (extra.length > 0) throw invalidArgument(`order_by: unexpected "${extra.join(' ')}" after "${path}"`);
    const resolved = resolveField(schema, path);
    if (!resolved) throw invalidArgument(`order_by: unknown field "${path}"`);
    if (resolved.mapKey !== undefined || !isLeafType(resolved.type)) {
      throw invalidArgument(`order_by: cannot sort by "${path}", it is not a scalar field`);
    }
    const dir = direction?.toLowerCase();
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      throw invalidArgument(`order_by: unknown direction "${direction}" for "${path}" (asc or desc)`);
    }
    if (terms.some((t) => t.field === resolved.field)) {
      throw invalidArgument(`order_by: field "${resolved.path}" appears twice`);
    }
    terms.push({ field: resolved.field, desc: dir === 'desc' });
  }
  return terms;
}
