import { filterError } from './filter-error.js';

export type TokenKind = 'word' | 'string' | 'number' | 'symbol' | 'end';

export interface Token {
  kind: TokenKind;
  /** source text of the token ('word', 'symbol', 'number'); the decoded value of a 'string' */
  text: string;
  /** 0-based index in the filter text */
  index: number;
}

const SYMBOLS = ['==', '!=', '<=', '>=', '=', '<', '>', '(', ')', '[', ']', ',', '+', '|'] as const;
const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isWordStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_\-/]/.test(c);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/** Splits a filter into tokens; `--` comments and whitespace are dropped. The last token is always 'end'. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === undefined) break;
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith('--', i)) {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline + 1;
    } else if (c === '"') {
      const { value, end } = readString(text, i);
      tokens.push({ kind: 'string', text: value, index: i });
      i = end;
    } else if (isDigit(c) || ((c === '+' || c === '-' || c === '.') && startsNumber(text, i))) {
      const match = NUMBER.exec(text.slice(i));
      if (!match) throw filterError(text, i, `bad number`);
      tokens.push({ kind: 'number', text: match[0], index: i });
      i += match[0].length;
    } else if (isWordStart(c)) {
      const end = readWord(text, i);
      tokens.push({ kind: 'word', text: text.slice(i, end), index: i });
      i = end;
    } else {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
      if (!symbol) throw filterError(text, i, `unexpected character ${JSON.stringify(c)}`);
      tokens.push({ kind: 'symbol', text: symbol, index: i });
      i += symbol.length;
    }
  }
  tokens.push({ kind: 'end', text: '', index: text.length });
  return tokens;
}

function startsNumber(text: string, i: number): boolean {
  const next = text[i + 1];
  if (isDigit(next)) return true;
  return text[i] !== '.' && next === '.' && isDigit(text[i + 2]);
}

/** A dotted path: segments of letters, digits, '_', '-' and '/'; the first starts with a letter or '_'. */
function readWord(text: string, start: number): number {
  let i = start;
  for (;;) {
    while (isWordChar(text[i]) && !text.startsWith('--', i)) i++;
    if (text[i] === '.' && isWordChar(text[i + 1]) && text[i + 1] !== '-') i++;
    else return i;
  }
}

function readString(text: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) break;
    const simple = JSON_ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (next === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw filterError(text, i, 'bad \\u escape in string');
      value += String.fromCharCode(parseInt(hex, 16));
      i += 6;
    } else {
      // Unknown escapes keep their backslash, so LIKE patterns such as "50\%" read naturally.
      value += c + next;
      i += 2;
    }
  }
  throw filterError(text, start, 'unterminated string');
}
