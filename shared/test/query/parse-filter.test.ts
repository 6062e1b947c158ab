import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter, type FilterNode } from '../../src/query/index.js';
import { testSchema } from './test-schema.js';

const ast = (text: string): FilterNode | null => parseFilter(text, testSchema).ast;

/** A compact picture of an AST: ['and', ...], ['or', ...], ['not', x], or 'path op value'. */
function shape(node: FilterNode | null): unknown {
  if (node === null) return null;
  switch (node.kind) {
    case 'and':
    case 'or':
      return [node.kind, ...node.children.map(shape)];
    case 'not':
      return ['not', shape(node.child)];
    case 'compare':
      return `${node.field.path} ${node.op} ${JSON.stringify(node.value)}`;
    case 'isNull':
      return `${node.field.path} IS ${node.negated ? 'NOT ' : ''}NULL`;
    case 'in':
      return `${node.field.path} ${node.negated ? 'NOT ' : ''}IN ${JSON.stringify(node.values)}`;
    case 'like':
      return `${node.field.path} LIKE ${JSON.stringify(node.pattern)}`;
    case 'contains':
      return `${node.field.path} CONTAINS ${node.mode} ${JSON.stringify(node.values)}`;
  }
}

function rejection(text: string): string {
  try {
    parseFilter(text, testSchema);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe('INVALID_ARGUMENT');
    return (err as ApiError).message;
  }
  throw new Error(`filter ${JSON.stringify(text)} was accepted`);
}

describe('parseFilter: empty filters', () => {
  it('gives a null ast for empty, blank, comment-only and "()" filters', () => {
    for (const text of ['', '   ', '\n\t', '()', ' ( ) ', '-- nothing here', '() -- still nothing']) {
      expect(parseFilter(text, testSchema)).toEqual({ ast: null, text });
    }
  });
});

describe('parseFilter: operators', () => {
  it('reads every comparison operator, == being =', () => {
    expect(shape(ast('spec.count = 1'))).toBe('spec.count = 1');
    expect(shape(ast('spec.count == 1'))).toBe('spec.count = 1');
    expect(shape(ast('spec.count != 1'))).toBe('spec.count != 1');
    expect(shape(ast('spec.count < -1'))).toBe('spec.count < -1');
    expect(shape(ast('spec.count <= +2'))).toBe('spec.count <= 2');
    expect(shape(ast('spec.ratio > 1.5e1'))).toBe('spec.ratio > 15');
    expect(shape(ast('spec.ratio >= .5'))).toBe('spec.ratio >= 0.5');
    expect(shape(ast('spec.count=1'))).toBe('spec.count = 1');
  });

  it('reads IN and NOT IN with parentheses or brackets, possibly empty', () => {
    expect(shape(ast('display_name IN ("a", "b")'))).toBe('displayName IN ["a","b"]');
    expect(shape(ast('display_name in ["a"]'))).toBe('displayName IN ["a"]');
    expect(shape(ast('spec.count NOT IN (1, 2)'))).toBe('spec.count NOT IN [1,2]');
    expect(shape(ast('spec.count not in []'))).toBe('spec.count NOT IN []');
  });

  it('reads CONTAINS and its aliases HAS, CONTAIN, HAVE, with VALUE, ANY and ALL forms', () => {
    for (const word of ['CONTAINS', 'contains', 'HAS', 'has', 'CONTAIN', 'Contain', 'HAVE', 'have']) {
      expect(shape(ast(`metadata.labels ${word} "wave:canary"`))).toBe('metadata.labels CONTAINS any ["wave:canary"]');
    }
    expect(shape(ast('metadata.tags CONTAINS VALUE "x"'))).toBe('metadata.tags CONTAINS any ["x"]');
    expect(shape(ast('metadata.tags CONTAINS ANY ("x", "y")'))).toBe('metadata.tags CONTAINS any ["x","y"]');
    expect(shape(ast('metadata.tags has all ["x", "y"]'))).toBe('metadata.tags CONTAINS all ["x","y"]');
  });

  it('reads LIKE, IS NULL, IS NOT NULL, and turns = null / != null into them', () => {
    expect(shape(ast('display_name LIKE "a%_"'))).toBe('displayName LIKE "a%_"');
    expect(shape(ast('spec.count IS NULL'))).toBe('spec.count IS NULL');
    expect(shape(ast('spec.count is not null'))).toBe('spec.count IS NOT NULL');
    expect(shape(ast('status = null'))).toBe('status IS NULL');
    expect(shape(ast('status != NULL'))).toBe('status IS NOT NULL');
    expect(shape(ast('metadata.labels IS NULL'))).toBe('metadata.labels IS NULL');
  });

  it('converts values to the field type', () => {
    expect(shape(ast('spec.enabled = TRUE'))).toBe('spec.enabled = true');
    expect(shape(ast('spec.enabled != false'))).toBe('spec.enabled != false');
    expect(shape(ast('spec.count = "7"'))).toBe('spec.count = 7');
    expect(shape(ast('spec.count = 7.0'))).toBe('spec.count = 7');
    expect(shape(ast('status.state = "CONNECTED"'))).toBe('status.state = "CONNECTED"');
    expect(shape(ast('status.state = 2'))).toBe('status.state = "DISCONNECTED"');
    expect(shape(ast('status.state IN (1, "DISCONNECTED")'))).toBe('status.state IN ["CONNECTED","DISCONNECTED"]');
    expect(shape(ast('metadata.create_time > "2024-01-01T02:00:00+02:00"'))).toBe(
      'metadata.createTime > "2024-01-01T00:00:00.000Z"',
    );
    expect(shape(ast('metadata.createTime = "2024-05-06t07:08:09.123456z"'))).toBe(
      'metadata.createTime = "2024-05-06T07:08:09.123Z"',
    );
    expect(shape(ast('metadata.labels.env = "prod"'))).toBe('metadata.labels.env = "prod"');
  });

  it('decodes string escapes and keeps unknown ones (for LIKE) with their backslash', () => {
    expect(shape(ast('display_name = "a\\"b\\\\c\\n\\u00e9"'))).toBe(`displayName = ${JSON.stringify('a"b\\c\né')}`);
    expect(shape(ast('display_name LIKE "50\\%"'))).toBe(`displayName LIKE ${JSON.stringify('50\\%')}`);
  });

  it('matches keywords case-insensitively', () => {
    expect(shape(ast('spec.count = 1 and not spec.count = 2 Or spec.count iS nUlL'))).toEqual([
      'or',
      ['and', 'spec.count = 1', ['not', 'spec.count = 2']],
      'spec.count IS NULL',
    ]);
  });
});

describe('parseFilter: structure', () => {
  it('binds NOT tighter than AND, and AND tighter than OR', () => {
    expect(shape(ast('spec.count = 1 OR spec.count = 2 AND spec.count = 3'))).toEqual([
      'or',
      'spec.count = 1',
      ['and', 'spec.count = 2', 'spec.count = 3'],
    ]);
    expect(shape(ast('NOT spec.count = 1 AND spec.count = 2'))).toEqual([
      'and',
      ['not', 'spec.count = 1'],
      'spec.count = 2',
    ]);
    expect(shape(ast('NOT (spec.count = 1 OR spec.count = 2)'))).toEqual([
      'not',
      ['or', 'spec.count = 1', 'spec.count = 2'],
    ]);
    expect(shape(ast('(spec.count = 1 OR spec.count = 2) AND spec.count = 3'))).toEqual([
      'and',
      ['or', 'spec.count = 1', 'spec.count = 2'],
      'spec.count = 3',
    ]);
  });

  it('treats juxtaposition and + as AND, | as OR', () => {
    expect(shape(ast('spec.count = 1 spec.ratio = 2 OR spec.count = 3'))).toEqual([
      'or',
      ['and', 'spec.count = 1', 'spec.ratio = 2'],
      'spec.count = 3',
    ]);
    expect(shape(ast('spec.count = 1 + spec.ratio = 2 | spec.count = 3'))).toEqual([
      'or',
      ['and', 'spec.count = 1', 'spec.ratio = 2'],
      'spec.count = 3',
    ]);
    expect(shape(ast('spec.count = 1 NOT spec.ratio = 2'))).toEqual([
      'and',
      'spec.count = 1',
      ['not', 'spec.ratio = 2'],
    ]);
  });

  it('skips -- comments to the end of the line', () => {
    const text = 'spec.count = 1 -- the count\n-- a whole line\nAND display_name = "a--b" -- trailing';
    expect(shape(ast(text))).toEqual(['and', 'spec.count = 1', 'displayName = "a--b"']);
    expect(shape(ast('spec.count = -1--comment'))).toBe('spec.count = -1');
  });

  it('keeps the text it was given', () => {
    expect(parseFilter(' spec.count = 1 ', testSchema).text).toBe(' spec.count = 1 ');
  });
});

describe('parseFilter: errors name what is wrong and its 1-based position', () => {
  it('rejects an unterminated string at its opening quote', () => {
    expect(rejection('display_name = "abc')).toBe('filter: unterminated string at position 16');
    expect(rejection('display_name = "ab\\"')).toBe('filter: unterminated string at position 16');
  });

  it('rejects unknown fields', () => {
    expect(rejection('spec.count = 1 AND spec.nope = 2')).toBe('filter: unknown field "spec.nope" at position 20');
    expect(rejection('metadata.tags.x CONTAINS "y"')).toBe('filter: unknown field "metadata.tags.x" at position 1');
  });

  it('rejects values of the wrong type at the value', () => {
    expect(rejection('spec.count = "abc"')).toBe(
      'filter: type mismatch: field "spec.count" expects an integer at position 14',
    );
    expect(rejection('spec.count = 1.5')).toMatch(/expects an integer at position 14$/);
    expect(rejection('spec.enabled = 3')).toBe(
      'filter: type mismatch: field "spec.enabled" expects true or false at position 16',
    );
    expect(rejection('spec.ratio = "x"')).toMatch(/expects a number at position 14$/);
    expect(rejection('display_name = 3')).toMatch(/expects a string at position 16$/);
    expect(rejection('status.state = "ONLINE"')).toBe(
      'filter: type mismatch: field "status.state" expects one of "STATE_UNSPECIFIED", "CONNECTED", "DISCONNECTED" at position 16',
    );
    expect(rejection('status.state = 3')).toMatch(/expects one of .* at position 16$/);
    expect(rejection('metadata.createTime > "yesterday"')).toMatch(/expects an RFC3339 timestamp at position 23$/);
    expect(rejection('metadata.createTime > "2024-02-30T00:00:00Z"')).toMatch(/RFC3339 timestamp at position 23$/);
    expect(rejection('spec.count IN (1, "x")')).toMatch(/expects an integer at position 19$/);
    expect(rejection('status = "x"')).toBe(
      'filter: type mismatch: field "status" can only be compared with null at position 10',
    );
  });

  it('rejects ordering operators and LIKE on non-leaf fields, at the operator', () => {
    expect(rejection('status < 1')).toBe('filter: operator < needs a leaf field, not "status" at position 8');
    expect(rejection('metadata.labels >= "a"')).toBe(
      'filter: operator >= needs a leaf field, not "metadata.labels" at position 17',
    );
    expect(rejection('metadata.tags LIKE "a%"')).toBe(
      'filter: LIKE needs a leaf field, not "metadata.tags" at position 15',
    );
    expect(rejection('status LIKE "a"')).toMatch(/LIKE needs a leaf field.* at position 8$/);
    expect(rejection('metadata.tags IN ("a")')).toMatch(/IN needs a leaf field.* at position 15$/);
  });

  it('rejects ordering an enum, and LIKE on numbers and bools', () => {
    expect(rejection('status.state > "CONNECTED"')).toBe(
      'filter: operator > cannot order enum field "status.state" at position 14',
    );
    expect(rejection('spec.count LIKE "1%"')).toBe(
      'filter: LIKE needs a string field, "spec.count" is int at position 12',
    );
    expect(rejection('spec.enabled LIKE "t%"')).toMatch(/LIKE needs a string field.* at position 14$/);
  });

  it('rejects CONTAINS on scalars, at the keyword', () => {
    expect(rejection('display_name CONTAINS "a"')).toBe(
      'filter: CONTAINS needs a labels or list field, not "displayName" at position 14',
    );
    expect(rejection('metadata.labels.env HAS "a"')).toMatch(/HAS needs a labels or list field.* at position 21$/);
    expect(rejection('status CONTAINS "a"')).toMatch(/at position 8$/);
    expect(rejection('metadata.tags CONTAINS 3')).toBe('filter: CONTAINS expects a string at position 24');
  });

  it('rejects null with other operators than = and !=', () => {
    expect(rejection('spec.count < null')).toBe('filter: null can only be compared with = or != at position 14');
    expect(rejection('spec.count IN (1, null)')).toBe('filter: null is only allowed with = and != at position 19');
  });

  it('rejects trailing garbage', () => {
    expect(rejection('spec.count = 1 2')).toBe('filter: unexpected "2" at position 16');
    expect(rejection('spec.count = 1 = 2')).toBe('filter: unexpected "=" at position 16');
    expect(rejection('spec.count = 1 "x"')).toBe('filter: unexpected "x" at position 16');
    expect(rejection('spec.count = 1 AND')).toBe(
      'filter: unexpected end of filter, expected a condition at position 19',
    );
    expect(rejection('spec.count = 1 OR OR spec.count = 2')).toBe(
      'filter: expected a condition, found "OR" at position 19',
    );
    expect(rejection('AND spec.count = 1')).toBe('filter: expected a condition, found "AND" at position 1');
    expect(rejection('spec.count = 1 AND ,')).toBe('filter: expected a condition, found "," at position 20');
  });

  it('rejects unbalanced parentheses', () => {
    expect(rejection('(spec.count = 1')).toBe("filter: unbalanced parenthesis '(' is not closed at position 1");
    expect(rejection('((spec.count = 1) OR spec.count = 2')).toBe(
      "filter: unbalanced parenthesis '(' is not closed at position 1",
    );
    expect(rejection('spec.count = 1)')).toBe("filter: unbalanced parenthesis ')' at position 15");
    expect(rejection(')')).toBe("filter: unbalanced parenthesis ')' at position 1");
    expect(rejection('spec.count IN (1, 2')).toBe("filter: unbalanced parenthesis '(' is not closed at position 15");
    expect(rejection('spec.count IN (1, 2]')).toBe('filter: expected , or ), found "]" at position 20');
  });

  it('rejects other malformed input', () => {
    expect(rejection('spec.count')).toBe(
      'filter: expected an operator after "spec.count", found end of filter at position 11',
    );
    expect(rejection('spec.count = ')).toBe('filter: expected a value, found end of filter at position 14');
    expect(rejection('spec.count ~ 1')).toBe('filter: unexpected character "~" at position 12');
    expect(rejection('spec.count IS 1')).toBe('filter: expected NULL, found "1" at position 15');
    expect(rejection('spec.count IN 1')).toBe('filter: expected ( or [, found "1" at position 15');
    expect(rejection('display_name = "\\u12"')).toBe('filter: bad \\u escape in string at position 17');
    expect(rejection('spec.count = {a: 1}')).toMatch(/unexpected character "\{" at position 14$/);
  });

  it('counts positions in characters, not UTF-16 units, across lines', () => {
    expect(rejection('display_name = "😀" AND nope = 1')).toBe('filter: unknown field "nope" at position 24');
    expect(rejection('spec.count = 1 -- ok\nnope = 1')).toBe('filter: unknown field "nope" at position 22');
  });
});

describe('parseFilter: bounds', () => {
  const nested = (levels: number, open: string, close: string): string =>
    open.repeat(levels) + 'spec.count = 1' + close.repeat(levels);

  it('reads parentheses and NOTs nested up to MAX_FILTER_DEPTH levels, mixed', () => {
    expect(shape(ast(nested(MAX_FILTER_DEPTH, '(', ')')))).toBe('spec.count = 1');
    const levels = MAX_FILTER_DEPTH / 2;
    let node = ast(nested(levels, 'NOT (', ')'));
    for (let i = 0; i < levels; i++) {
      expect(node?.kind).toBe('not');
      node = node?.kind === 'not' ? node.child : null;
    }
    expect(shape(node)).toBe('spec.count = 1');
  });

  it('refuses one level more, at the opening that goes too deep, and does not overflow on thousands of levels', () => {
    const message = `nested deeper than ${MAX_FILTER_DEPTH} levels of parentheses and NOT`;
    expect(rejection(nested(MAX_FILTER_DEPTH + 1, '(', ')'))).toBe(
      `filter: ${message} at position ${MAX_FILTER_DEPTH + 1}`,
    );
    expect(rejection(nested(MAX_FILTER_DEPTH + 1, 'NOT ', ''))).toBe(
      `filter: ${message} at position ${MAX_FILTER_DEPTH * 4 + 1}`,
    );
    expect(rejection(nested(4_900, '(', ')'))).toBe(`filter: ${message} at position ${MAX_FILTER_DEPTH + 1}`);
    expect(rejection(nested(2_000, 'NOT ', ''))).toBe(`filter: ${message} at position ${MAX_FILTER_DEPTH * 4 + 1}`);
  });

  it('reads a filter of MAX_FILTER_LENGTH characters and refuses a longer one before reading it', () => {
    const atLimit = ('spec.count IN (' + '1,'.repeat(MAX_FILTER_LENGTH / 2 - 20) + '1)').padEnd(MAX_FILTER_LENGTH);
    expect(ast(atLimit)?.kind).toBe('in');
    const tooLong = atLimit + ' ';
    expect(rejection(tooLong)).toBe(
      `filter: longer than ${MAX_FILTER_LENGTH} characters (${MAX_FILTER_LENGTH + 1}) at position ${MAX_FILTER_LENGTH + 1}`,
    );
    expect(rejection('('.repeat(MAX_FILTER_LENGTH + 1))).toMatch(/^filter: longer than/);
  });
});
