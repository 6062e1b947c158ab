import type { ResolvedField } from './field-schema.js';
import type { FilterValue } from './filter-ast.js';
import type { Token } from './filter-lexer.js';

/** The value of a literal token: a string, number, boolean or null; undefined when the token is no literal. */
export type Literal =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

export function literalOf(token: Token): Literal | undefined {
  if (token.kind === 'string') return { kind: 'string', value: token.text };
  if (token.kind === 'number') return { kind: 'number', value: Number(token.text) };
  if (token.kind !== 'word') return undefined;
  const word = token.text.toLowerCase();
  if (word === 'true' || word === 'false') return { kind: 'bool', value: word === 'true' };
  if (word === 'null') return { kind: 'null' };
  return undefined;
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC3339 timestamp in Date.toISOString() form (millisecond precision), or undefined when it is not one. */
export function normalizeTimestamp(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map(Number);
  const offset = m[8] ?? 'Z';
  const offsetOk = /^[Zz]$/.test(offset) || (Number(offset.slice(1, 3)) <= 23 && Number(offset.slice(4, 6)) <= 59);
  const dateOk = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
  if (!offsetOk || !dateOk || hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = (m[7] ?? '.0').slice(1, 4).padEnd(3, '0');
  const iso = `${m.slice(1, 4).join('-')}T${m.slice(4, 7).join(':')}.${millis}${offset.toUpperCase()}`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** The filter value a literal means for a leaf field, or an error message when the types do not fit. */
export function coerceLiteral(field: ResolvedField, literal: Literal): FilterValue | { mismatch: string } {
  const expected = (what: string): { mismatch: string } => ({
    mismatch: `field "${field.path}" expects ${what}`,
  });
  switch (field.type) {
    case 'string':
    case 'name':
      return literal.kind === 'string' ? literal.value : expected('a string');
    case 'int': {
      const n = literal.kind === 'number' ? literal.value : integerText(literal);
      return n !== undefined && Number.isSafeInteger(n) ? n : expected('an integer');
    }
    case 'double': {
      const n =
        literal.kind === 'number'
          ? literal.value
          : literal.kind === 'string' && NUMBER_TEXT.test(literal.value)
            ? Number(literal.value)
            : undefined;
      return n !== undefined && Number.isFinite(n) ? n : expected('a number');
    }
    case 'bool':
      return literal.kind === 'bool' ? literal.value : expected('true or false');
    case 'timestamp': {
      const ts = literal.kind === 'string' ? normalizeTimestamp(literal.value) : undefined;
      return ts ?? expected('an RFC3339 timestamp');
    }
    case 'enum': {
      const values = field.field.enumValues ?? [];
      const aliases = field.field.enumAliases ?? {};
      if (literal.kind === 'string' && values.includes(literal.value)) return literal.value;
      const aliased =
        literal.kind === 'string' && Object.hasOwn(aliases, literal.value) ? aliases[literal.value] : undefined;
      if (aliased !== undefined) return aliased;
      const byNumber = literal.kind === 'number' && Number.isInteger(literal.value) ? values[literal.value] : undefined;
      const words = [...values, ...Object.keys(aliases)].map((v) => JSON.stringify(v));
      return byNumber ?? expected(`one of ${words.join(', ')}`);
    }
    case 'labels':
    case 'stringList':
    case 'object':
      return { mismatch: `field "${field.path}" can only be compared with null` };
  }
}

function integerText(literal: Literal): number | undefined {
  return literal.kind === 'string' && INTEGER_TEXT.test(literal.value) ? Number(literal.value) : undefined;
}
