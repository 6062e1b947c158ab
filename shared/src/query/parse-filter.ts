import { isLeafType, resolveField, type FilterSchema, type ResolvedField } from './field-schema.js';
import type { CompareOp, Filter, FilterNode, FilterValue } from './filter-ast.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH } from './filter-bounds.js';
import { filterError } from './filter-error.js';
import { tokenize, type Token } from './filter-lexer.js';
import { coerceLiteral, literalOf } from './filter-values.js';

const COMPARE_OPS: Readonly<Record<string, CompareOp>> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};
const CONTAINS_WORDS = new Set(['contains', 'contain', 'has', 'have']);
const STRING_LIKE_TYPES = new Set(['string', 'name', 'enum', 'timestamp']);

/** Parses a filter (design.md "Filter language"); empty, blank or "()" gives a null ast that matches everything. */
export function parseFilter(text: string, schema: FilterSchema): Filter {
  if (text.length > MAX_FILTER_LENGTH) {
    throw filterError(text, MAX_FILTER_LENGTH, `longer than ${MAX_FILTER_LENGTH} characters (${text.length})`);
  }
  const tokens = tokenize(text);
  const isEmptyParens = tokens.length === 3 && tokens[0]?.text === '(' && tokens[1]?.text === ')';
  if (tokens.length === 1 || isEmptyParens) return { ast: null, text };
  return { ast: new FilterParser(text, tokens, schema).parseAll(), text };
}

class FilterParser {
  private at = 0;
  /** parentheses and NOTs open around the current token */
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
    private readonly schema: FilterSchema,
  ) {}

  parseAll(): FilterNode {
    const node = this.parseOr();
    const rest = this.peek();
    if (rest.kind === 'end') return node;
    if (rest.text === ')') throw this.error(rest, "unbalanced parenthesis ')'");
    throw this.error(rest, `unexpected ${describe(rest)}`);
  }

  private parseOr(): FilterNode {
    const children = [this.parseAnd()];
    while (this.isWord(this.peek(), 'or') || this.peek().text === '|') {
      this.next();
      children.push(this.parseAnd());
    }
    return children.length === 1 && children[0] ? children[0] : { kind: 'or', children };
  }

  private parseAnd(): FilterNode {
    const children = [this.parseCondition()];
    for (;;) {
      const token = this.peek();
      if (this.isWord(token, 'and') || (token.kind === 'symbol' && token.text === '+')) {
        this.next();
        children.push(this.parseCondition());
      } else if (this.startsCondition(token)) {
        children.push(this.parseCondition()); // juxtaposition means AND
      } else {
        return children.length === 1 && children[0] ? children[0] : { kind: 'and', children };
      }
    }
  }

  private startsCondition(token: Token): boolean {
    if (token.kind === 'symbol') return token.text === '(';
    return token.kind === 'word' && !this.isWord(token, 'or') && !this.isWord(token, 'and');
  }

  private parseCondition(): FilterNode {
    const token = this.next();
    if (token.kind === 'symbol' && token.text === '(') {
      const inner = this.nested(token, () => this.parseOr());
      const close = this.peek();
      if (close.kind === 'end') throw this.error(token, "unbalanced parenthesis '(' is not closed");
      if (close.text !== ')') throw this.error(close, `unexpected ${describe(close)}`);
      this.next();
      return inner;
    }
    if (this.isWord(token, 'not')) return { kind: 'not', child: this.nested(token, () => this.parseCondition()) };
    if (token.kind === 'word' && !this.isWord(token, 'and') && !this.isWord(token, 'or')) {
      return this.parseComparison(token);
    }
    if (token.kind === 'end') throw this.error(token, 'unexpected end of filter, expected a condition');
    if (token.text === ')') throw this.error(token, "unbalanced parenthesis ')'");
    throw this.error(token, `expected a condition, found ${describe(token)}`);
  }

  /** Parses what `opener` ('(' or NOT) opens, one level deeper; refuses to go beyond MAX_FILTER_DEPTH. */
  private nested(opener: Token, parse: () => FilterNode): FilterNode {
    if (this.depth === MAX_FILTER_DEPTH) {
      throw this.error(opener, `nested deeper than ${MAX_FILTER_DEPTH} levels of parentheses and NOT`);
    }
    this.depth++;
    const node = parse();
    this.depth--;
    return node;
  }

  private parseComparison(pathToken: Token): FilterNode {
    const field = resolveField(this.schema, pathToken.text);
    if (!field) throw this.error(pathToken, `unknown field "${pathToken.text}"`);
    const opToken = this.next();
    const compareOp = opToken.kind === 'symbol' ? COMPARE_OPS[opToken.text] : undefined;
    if (compareOp) return this.parseCompare(field, compareOp, opToken);
    if (this.isWord(opToken, 'is')) return this.parseIsNull(field);
    if (this.isWord(opToken, 'in')) return this.parseIn(field, opToken, false);
    if (this.isWord(opToken, 'not') && this.isWord(this.peek(), 'in')) {
      return this.parseIn(field, this.next(), true);
    }
    if (opToken.kind === 'word' && CONTAINS_WORDS.has(opToken.text.toLowerCase())) {
      return this.parseContains(field, opToken);
    }
    if (this.isWord(opToken, 'like')) return this.parseLike(field, opToken);
    throw this.error(opToken, `expected an operator after "${pathToken.text}", found ${describe(opToken)}`);
  }

  private parseCompare(field: ResolvedField, op: CompareOp, opToken: Token): FilterNode {
    const valueToken = this.next();
    const literal = literalOf(valueToken);
    if (!literal) throw this.error(valueToken, `expected a value, found ${describe(valueToken)}`);
    if (literal.kind === 'null') {
      if (op === '=' || op === '!=') return { kind: 'isNull', field, negated: op === '!=' };
      throw this.error(valueToken, `null can only be compared with = or !=`);
    }
    if (op !== '=' && op !== '!=') {
      if (!isLeafType(field.type)) throw this.error(opToken, `operator ${op} needs a leaf field, not "${field.path}"`);
      if (field.type === 'enum') throw this.error(opToken, `operator ${op} cannot order enum field "${field.path}"`);
    }
    return { kind: 'compare', field, op, value: this.coerce(field, valueToken) };
  }

  private parseIsNull(field: ResolvedField): FilterNode {
    const negated = this.isWord(this.peek(), 'not');
    if (negated) this.next();
    const nullToken = this.next();
    if (!this.isWord(nullToken, 'null')) throw this.error(nullToken, `expected NULL, found ${describe(nullToken)}`);
    return { kind: 'isNull', field, negated };
  }

  private parseIn(field: ResolvedField, inToken: Token, negated: boolean): FilterNode {
    if (!isLeafType(field.type)) throw this.error(inToken, `IN needs a leaf field, not "${field.path}"`);
    const values = this.parseList().map((token) => this.coerce(field, token));
    return { kind: 'in', field, values, negated };
  }

  private parseContains(field: ResolvedField, containsToken: Token): FilterNode {
    if (field.type !== 'labels' && field.type !== 'stringList') {
      throw this.error(
        containsToken,
        `${containsToken.text.toUpperCase()} needs a labels or list field, not "${field.path}"`,
      );
    }
    const mode = this.isWord(this.peek(), 'all') ? 'all' : 'any';
    let valueTokens: Token[];
    if (this.isWord(this.peek(), 'any') || this.isWord(this.peek(), 'all')) {
      this.next();
      valueTokens = this.parseList();
    } else {
      if (this.isWord(this.peek(), 'value')) this.next();
      valueTokens = [this.next()];
    }
    const values = valueTokens.map((token) => {
      if (token.kind !== 'string') throw this.error(token, `${containsToken.text.toUpperCase()} expects a string`);
      return token.text;
    });
    return { kind: 'contains', field, values, mode };
  }

  private parseLike(field: ResolvedField, likeToken: Token): FilterNode {
    if (!isLeafType(field.type)) throw this.error(likeToken, `LIKE needs a leaf field, not "${field.path}"`);
    if (!STRING_LIKE_TYPES.has(field.type)) {
      throw this.error(likeToken, `LIKE needs a string field, "${field.path}" is ${field.type}`);
    }
    const pattern = this.next();
    if (pattern.kind !== 'string') throw this.error(pattern, 'LIKE expects a string pattern');
    return { kind: 'like', field, pattern: pattern.text };
  }

  /** `( v, ... )` or `[ v, ... ]`, possibly empty; returns the value tokens. */
  private parseList(): Token[] {
    const open = this.next();
    const close = open.text === '(' ? ')' : open.text === '[' ? ']' : undefined;
    if (open.kind !== 'symbol' || !close) throw this.error(open, `expected ( or [, found ${describe(open)}`);
    const values: Token[] = [];
    if (this.peek().text === close && this.peek().kind === 'symbol') {
      this.next();
      return values;
    }
    for (;;) {
      values.push(this.next());
      const separator = this.next();
      if (separator.kind === 'symbol' && separator.text === close) return values;
      if (separator.kind === 'end') throw this.error(open, `unbalanced parenthesis '${open.text}' is not closed`);
      if (separator.kind !== 'symbol' || separator.text !== ',') {
        throw this.error(separator, `expected , or ${close}, found ${describe(separator)}`);
      }
    }
  }

  private coerce(field: ResolvedField, token: Token): FilterValue {
    const literal = literalOf(token);
    if (!literal) throw this.error(token, `expected a value, found ${describe(token)}`);
    if (literal.kind === 'null') throw this.error(token, 'null is only allowed with = and !=');
    const value = coerceLiteral(field, literal);
    if (typeof value === 'object') throw this.error(token, `type mismatch: ${value.mismatch}`);
    return value;
  }

  private peek(): Token {
    return this.tokens[this.at] ?? this.endToken();
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at++;
    return token;
  }

  private endToken(): Token {
    return { kind: 'end', text: '', index: this.text.length };
  }

  private isWord(token: Token, keyword: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  private error(token: Token, what: string): Error {
    return filterError(this.text, token.index, what);
  }
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of filter';
  if (token.kind === 'string') return JSON.stringify(token.text);
  return `"${token.text}"`;
}
