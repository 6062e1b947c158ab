import fc from 'fast-check';
import { STATES } from './test-schema.js';

/**
 * Random documents and filter texts over testSchema, for the property tests that compare a store's SQL with
 * evaluateFilter (this package's SQLite store; the control plane's SQLite and PostgreSQL tables).
 */

// Characters that stress byte order (BMP above the surrogates vs. astral), case, and LIKE/GLOB specials.
const CHARS = ['a', 'b', 'B', 'é', 'É', '\uFF21', '😀', '%', '_', '*', '?', '[', ']', '\\', ':', '"', ' '];
const INSTANTS = [
  '2024-01-01T00:00:00.000Z',
  '2024-01-01T00:00:00.500Z',
  '2024-06-01T12:00:00.000Z',
  '1999-12-31T23:59:59.999Z',
];
const NAMES = [
  'projects/p1/devices/d1',
  'projects/p2/devices/d1',
  'projects/p1/devices/d2',
  'projects/p1/regions/r1/devices/d1',
  'projects/-/devices/d1',
];
const NAME_PATTERNS = [
  ...NAMES,
  'projects/-/devices/d1',
  'projects/p1/devices/-',
  '-',
  'projects/-/regions/-/devices/-',
  'projects',
];
const LABEL_KEYS = ['k1', 'k2', 'a', 'a:b'];
const LABEL_VALUES = ['v', 'x:y', '', 'b', 'B'];
const LABEL_PROBES = ['k1', 'k2', 'a', 'a:b', 'a:b:b', 'a:b:v', 'k1:v', 'k2:x:y', 'k1:', 'a:', 'zz', ''];
const TAGS = ['x', 'y', 'z'];

/** A value, JSON null, or absent (undefined keys vanish when the document is serialised). */
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> =>
  fc.oneof({ arbitrary: arb, weight: 4 }, fc.constant(null), fc.constant(undefined));

const text = fc.oneof(
  fc.array(fc.constantFrom(...CHARS), { maxLength: 3 }).map((cs) => cs.join('')),
  fc.constantFrom('b', 'B', 'ab', 'aB', 'é', 'É', '😀', '\uFF21', 'a😀', 'a\uFF21'),
);
const int = fc.integer({ min: -2, max: 2 });
const double = fc.constantFrom(-1.5, 0, 0.5, 1, 2.25);

/**
 * Names a resource may have (no '-' id, which only parents may hold), all matching some of NAME_PATTERNS: for the
 * tests that store documents under their names, one document a name.
 */
export const STORABLE_NAMES = [
  ...NAMES.filter((name) => !name.split('/').includes('-')),
  'projects/p2/devices/d2',
  'projects/p1/devices/d3',
  'projects/p1/regions/r1/devices/d2',
  'projects/p2/regions/r1/devices/d1',
] as const;

/** A random document named by one of `names`. */
const documentNamed = (names: fc.Arbitrary<string>) =>
  fc.record({
    name: names,
    displayName: maybe(text),
    spec: maybe(
      fc.record({
        count: maybe(int),
        ratio: maybe(fc.oneof(double, int)),
        enabled: maybe(fc.boolean()),
        owner: maybe(fc.constantFrom(...NAMES)),
      }),
    ),
    metadata: maybe(
      fc.record({
        createTime: maybe(fc.constantFrom(...INSTANTS)),
        labels: maybe(fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom(...LABEL_VALUES))),
        tags: maybe(fc.array(fc.constantFrom(...TAGS), { maxLength: 3 })),
      }),
    ),
    status: maybe(
      fc.record({
        state: maybe(fc.constantFrom(...STATES)),
        deviceInfo: maybe(fc.record({ osVersion: maybe(fc.constantFrom('1.0.0', '1.1.0', '2.0.0')) })),
      }),
    ),
  });

export const docArb = documentNamed(fc.constantFrom(...NAMES));

/** At most one random document of each storable name. */
const storableDocuments = fc.uniqueArray(documentNamed(fc.constantFrom(...STORABLE_NAMES)), {
  selector: (doc) => doc.name,
  maxLength: STORABLE_NAMES.length,
});

/**
 * Writes to a store, from empty: `first` created, then `removed` (names) deleted, then `then` written (over the
 * documents of the same name, or created). What is left is the store's content.
 */
export const storeWritesArb = fc.record({
  first: storableDocuments,
  removed: fc.subarray([...STORABLE_NAMES]),
  then: storableDocuments,
});

// ---- filter text ----

const kw = (word: string): fc.Arbitrary<string> =>
  fc.constantFrom(word.toUpperCase(), word.toLowerCase(), word[0]?.toUpperCase() + word.slice(1).toLowerCase());
const quoted = (s: string): string => JSON.stringify(s);
const compareOp = fc.constantFrom('=', '==', '!=', '<', '<=', '>', '>=');
const equalityOp = fc.constantFrom('=', '==', '!=');
const list = <T>(items: fc.Arbitrary<T>, render: (item: T) => string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.array(items, { maxLength: 3 }), fc.boolean())
    .map(([values, round]) => (round ? `(${values.map(render).join(', ')})` : `[${values.map(render).join(', ')}]`));

/** Random RFC3339 spelling of one of the instants, in some other offset. */
const timestampLiteral = fc
  .tuple(fc.constantFrom(...INSTANTS), fc.constantFrom(0, 60, -90, 330), fc.boolean())
  .map(([iso, offsetMinutes, lowercase]) => {
    const shifted = new Date(Date.parse(iso) + offsetMinutes * 60_000).toISOString().slice(0, 23);
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const offset =
      offsetMinutes === 0
        ? 'Z'
        : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    const stamp = `${shifted}${offset}`;
    return quoted(lowercase ? stamp.toLowerCase() : stamp);
  });

const nullTests = (path: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    fc.tuple(path, kw('is'), kw('null')).map(([p, is, n]) => `${p} ${is} ${n}`),
    fc.tuple(path, kw('is'), kw('not'), kw('null')).map(([p, is, not, n]) => `${p} ${is} ${not} ${n}`),
    fc.tuple(path, fc.constantFrom('=', '!='), kw('null')).map(([p, op, n]) => `${p} ${op} ${n}`),
  );

/** Comparisons, IN / NOT IN and null tests for a leaf field with values rendered as literal text. */
function leafConditions(
  path: fc.Arbitrary<string>,
  literal: fc.Arbitrary<string>,
  ops = compareOp,
): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(path, ops, literal).map(([p, op, v]) => `${p} ${op} ${v}`),
    fc
      .tuple(
        path,
        kw('in'),
        list(literal, (v) => v),
      )
      .map(([p, inWord, l]) => `${p} ${inWord} ${l}`),
    fc
      .tuple(
        path,
        kw('not'),
        kw('in'),
        list(literal, (v) => v),
      )
      .map(([p, not, inWord, l]) => `${p} ${not} ${inWord} ${l}`),
    nullTests(path),
  );
}

/** Random patterns, and ones likely to hit: case differences, escapes, GLOB's own specials. */
const likePattern = fc.oneof(
  text,
  fc.constantFrom(
    '%b%',
    '%B%',
    'b%',
    '%b',
    'é',
    '%É',
    '_',
    '__',
    '%',
    '%\\%%',
    '%\\_%',
    '%*%',
    '%?%',
    '%[%',
    '%]%',
    '%\\\\%',
    '_😀',
    '%\uFF21',
    'p%',
  ),
);

const like = (path: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(path, kw('like'), likePattern).map(([p, likeWord, pattern]) => `${p} ${likeWord} ${quoted(pattern)}`);

const containsWord = fc.oneof(kw('contains'), kw('has'), kw('contain'), kw('have'));
const contains = (path: string, probes: readonly string[]): fc.Arbitrary<string> => {
  const probe = fc.constantFrom(...probes).map(quoted);
  return fc.oneof(
    fc.tuple(containsWord, probe).map(([c, v]) => `${path} ${c} ${v}`),
    fc.tuple(containsWord, kw('value'), probe).map(([c, value, v]) => `${path} ${c} ${value} ${v}`),
    fc
      .tuple(
        containsWord,
        fc.oneof(kw('any'), kw('all')),
        list(probe, (v) => v),
      )
      .map(([c, m, l]) => `${path} ${c} ${m} ${l}`),
    nullTests(fc.constant(path)),
  );
};

const leaf = fc.oneof(
  leafConditions(fc.constantFrom('displayName', 'display_name'), text.map(quoted)),
  like(fc.constantFrom('displayName', 'display_name')),
  leafConditions(
    fc.constant('spec.count'),
    fc.oneof(
      int.map(String),
      int.map((n) => quoted(String(n))),
      int.map((n) => `${n}.0`),
    ),
  ),
  leafConditions(fc.constant('spec.ratio'), fc.oneof(double, int).map(String)),
  leafConditions(fc.constant('spec.enabled'), fc.oneof(kw('true'), kw('false'))),
  leafConditions(fc.constantFrom('metadata.createTime', 'metadata.create_time'), timestampLiteral),
  leafConditions(
    fc.constant('status.state'),
    fc.oneof(fc.constantFrom(...STATES).map(quoted), fc.integer({ min: 0, max: STATES.length - 1 }).map(String)),
    equalityOp,
  ),
  like(fc.constant('status.state')),
  leafConditions(
    fc.constantFrom('status.device_info.os_version'),
    fc.constantFrom('1.0.0', '1.1.0', '2.0.0', '1').map(quoted),
  ),
  leafConditions(fc.constantFrom('spec.owner', 'name'), fc.constantFrom(...NAME_PATTERNS).map(quoted)),
  like(fc.constantFrom('spec.owner', 'name')),
  leafConditions(
    fc.constantFrom('metadata.labels.k1', 'metadata.labels.a'),
    fc.constantFrom(...LABEL_VALUES).map(quoted),
  ),
  like(fc.constant('metadata.labels.k2')),
  contains('metadata.labels', LABEL_PROBES),
  contains('metadata.tags', [...TAGS, 'w']),
  nullTests(fc.constantFrom('status', 'metadata.labels', 'metadata.tags')),
);

export const { filter: filterText } = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    leaf,
    fc.tuple(kw('not'), tie('filter')).map(([not, f]) => `${not} ${f}`),
    fc
      .tuple(tie('filter'), fc.constantFrom(' AND ', ' and ', ' ', ' + '), tie('filter'))
      .map(([a, op, b]) => `${a}${op}${b}`),
    fc.tuple(tie('filter'), fc.constantFrom(' OR ', ' or ', ' | '), tie('filter')).map(([a, op, b]) => `${a}${op}${b}`),
    tie('filter').map((f) => `(${f})`),
    tie('filter').map((f) => `${f} -- comment\n`),
  ),
}));

// ---- order_by text ----

/** Paths of testSchema a list may be ordered by (scalar leaves), spelled as a request may spell them. */
const ORDER_PATHS = [
  'name',
  'display_name',
  'spec.count',
  'spec.ratio',
  'spec.enabled',
  'spec.owner',
  'metadata.create_time',
  'status.state',
  'status.device_info.os_version',
];

/** No order (name order), or one to three distinct keys, each asc, desc or unsaid. */
export const orderByText = fc.oneof(
  fc.constant(''),
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...ORDER_PATHS), fc.constantFrom('', ' asc', ' desc')), {
      minLength: 1,
      maxLength: 3,
      selector: ([path]) => path,
    })
    .map((terms) => terms.map(([path, direction]) => `${path}${direction}`).join(', ')),
);
