import { afterAll, describe, expect, it } from 'vitest';
import { evaluateFilter, filterToSql, parseFilter } from '../../src/query/index.js';
import { SqliteStore } from './sqlite-store.js';
import { testSchema } from './test-schema.js';

const docs: unknown[] = [
  {
    name: 'projects/p1/devices/d0',
    displayName: 'alpha',
    spec: { count: 1, ratio: 0.5, enabled: true, owner: 'projects/p1/devices/d9' },
    metadata: { createTime: '2024-01-01T00:00:00.000Z', labels: { wave: 'canary', env: 'prod' }, tags: ['x', 'y'] },
    status: { state: 'CONNECTED', deviceInfo: { osVersion: '1.2.0' } },
  },
  {
    name: 'projects/p2/devices/d1',
    displayName: 'Alpha',
    spec: { count: 2, enabled: false },
    metadata: { createTime: '2024-06-01T12:00:00.000Z', labels: { env: 'dev', 'a:b': 'c' }, tags: [] },
    status: { state: 'DISCONNECTED' },
  },
  { name: 'projects/p1/regions/r1/devices/d2', displayName: '\uFF21', spec: null, metadata: {} },
  {
    name: 'projects/p1/devices/d3',
    displayName: '😀',
    spec: { count: 3 },
    metadata: { labels: { wave: '' } },
    status: null,
  },
  {
    name: 'projects/p1/devices/d4',
    displayName: '50%_off',
    metadata: { tags: ['z'] },
    status: { deviceInfo: { osVersion: '1.3.0' } },
  },
];

// [filter, indices of the documents it selects]
const cases: [string, number[]][] = [
  ['', [0, 1, 2, 3, 4]],
  ['()', [0, 1, 2, 3, 4]],
  // two-valued logic: a missing value is NULL; = and ordering are false on it, != and NOT IN true
  ['spec.count = 1', [0]],
  ['spec.count == 1', [0]],
  ['spec.count != 1', [1, 2, 3, 4]],
  ['NOT spec.count = 1', [1, 2, 3, 4]],
  ['spec.count > 1', [1, 3]],
  ['NOT spec.count > 1', [0, 2, 4]],
  ['spec.count >= 2', [1, 3]],
  ['spec.count < 2', [0]],
  ['spec.count <= 2', [0, 1]],
  ['spec.count IN (1, 3)', [0, 3]],
  ['spec.count NOT IN (1, 3)', [1, 2, 4]],
  ['spec.count IN ()', []],
  ['spec.count NOT IN ()', [0, 1, 2, 3, 4]],
  ['spec.count IS NULL', [2, 4]],
  ['spec.count = null', [2, 4]],
  ['spec.count IS NOT NULL', [0, 1, 3]],
  ['spec.ratio >= 0.5', [0]],
  ['spec.ratio = 0.5', [0]],
  // bools are 1/0 in SQLite
  ['spec.enabled = true', [0]],
  ['spec.enabled = false', [1]],
  ['spec.enabled != true', [1, 2, 3, 4]],
  ['spec.enabled < true', [1]],
  // LIKE is case-sensitive; _ is one character (even outside the BMP); \ escapes
  ['display_name LIKE "a%"', [0]],
  ['display_name LIKE "A%"', [1]],
  ['NOT display_name LIKE "a%"', [1, 2, 3, 4]],
  ['display_name LIKE "_"', [2, 3]],
  ['display_name LIKE "%"', [0, 1, 2, 3, 4]],
  ['display_name LIKE "50\\\\%\\\\_off"', [4]],
  ['display_name LIKE "50\\%_off"', [4]],
  ['display_name LIKE "50\\%x"', []],
  ['display_name LIKE "%lph%"', [0, 1]],
  ['spec.count IS NULL AND display_name LIKE "5%"', [4]],
  // strings order by UTF-8 bytes: '5' < 'A' < 'a' < U+FF21 < U+1F600
  ['display_name > "\uFF21"', [3]],
  ['display_name < "😀"', [0, 1, 2, 4]],
  ['display_name >= "a"', [0, 2, 3]],
  ['display_name < "B"', [1, 4]],
  // timestamps are normalised before comparing
  ['metadata.create_time > "2024-01-01T01:00:00+02:00"', [0, 1]],
  ['metadata.createTime = "2024-01-01T00:00:00Z"', [0]],
  ['metadata.createTime = "2024-01-01T01:00:00.000+01:00"', [0]],
  ['metadata.createTime < "2024-06-01T12:00:00Z"', [0]],
  ['metadata.createTime != "2024-06-01T12:00:00Z"', [0, 2, 3, 4]],
  // enums: by name or by number
  ['status.state = "CONNECTED"', [0]],
  ['status.state = 2', [1]],
  ['status.state != 1', [1, 2, 3, 4]],
  ['status.state IN ("CONNECTED", "DISCONNECTED")', [0, 1]],
  ['status.state LIKE "DIS%"', [1]],
  // labels: a key, or key:value; keys may hold ':' themselves
  ['metadata.labels CONTAINS "wave"', [0, 3]],
  ['metadata.labels CONTAINS "wave:canary"', [0]],
  ['metadata.labels HAS "wave:"', [3]],
  ['metadata.labels contain "a:b"', [1]],
  ['metadata.labels have "a:b:c"', [1]],
  ['metadata.labels CONTAINS "a"', []],
  ['metadata.labels CONTAINS "canary"', []],
  ['metadata.labels HAS ALL ("wave", "env:prod")', [0]],
  ['metadata.labels HAS ANY ("env:dev", "wave:")', [1, 3]],
  ['metadata.labels HAS ANY ()', []],
  ['metadata.labels HAS ALL ()', [0, 1, 2, 3, 4]],
  ['NOT metadata.labels CONTAINS "wave"', [1, 2, 4]],
  ['metadata.labels IS NULL', [2, 4]],
  ['metadata.labels.env = "prod"', [0]],
  ['metadata.labels.env != "prod"', [1, 2, 3, 4]],
  ['metadata.labels.wave IS NOT NULL', [0, 3]],
  ['metadata.labels.wave LIKE "c%"', [0]],
  ['metadata.labels.wave IN ("", "x")', [3]],
  // string lists
  ['metadata.tags CONTAINS "y"', [0]],
  ['metadata.tags CONTAINS VALUE "z"', [4]],
  ['metadata.tags HAS ALL ["x", "y"]', [0]],
  ['metadata.tags IS NULL', [2, 3]],
  // objects against null
  ['status IS NULL', [2, 3]],
  ['status != null', [0, 1, 4]],
  // names: '-' segments match any one segment
  ['name = "projects/-/devices/d1"', [1]],
  ['name = "projects/p1/devices/-"', [0, 3, 4]],
  ['name != "projects/p1/devices/-"', [1, 2]],
  ['name = "projects/p1/devices/d0"', [0]],
  ['name IN ("projects/p1/regions/-/devices/-", "projects/p2/devices/d1")', [1, 2]],
  ['name NOT IN ("projects/p1/regions/-/devices/-", "projects/p2/devices/d1")', [0, 3, 4]],
  ['name < "projects/p2"', [0, 2, 3, 4]],
  ['name LIKE "%/d_"', [0, 1, 2, 3, 4]],
  ['spec.owner = "projects/-/devices/-"', [0]],
  ['spec.owner != "projects/-/devices/-"', [1, 2, 3, 4]],
  // "reported differs from X" counts devices that never reported
  ['status.device_info.os_version = "1.2.0"', [0]],
  ['status.device_info.os_version != "1.2.0"', [1, 2, 3, 4]],
  // combinations
  ['spec.count = 1 OR display_name = "Alpha"', [0, 1]],
  ['spec.count >= 1 AND NOT spec.enabled = true', [1, 3]],
  ['(spec.count = 1 OR spec.count = 2) metadata.labels CONTAINS "env:dev"', [1]],
  ['spec.count = 1 OR spec.count = 2 AND metadata.labels CONTAINS "env:dev"', [0, 1]],
  ['NOT (spec.count = 1 OR status IS NULL)', [1, 4]],
];

describe('evaluateFilter and filterToSql agree with the documented semantics', () => {
  const store = new SqliteStore(testSchema);
  store.load(docs);
  afterAll(() => store.close());

  it.each(cases)('%s', (text, expected) => {
    const filter = parseFilter(text, testSchema);
    const inMemory = docs.flatMap((doc, i) => (evaluateFilter(filter, doc) ? [i] : []));
    expect(inMemory).toEqual(expected);
    expect(store.select(filter)).toEqual(expected);
  });

  it('compiles an empty filter to 1 and wildcard names to the registered function', () => {
    expect(filterToSql(parseFilter('', testSchema), store.target)).toEqual({ sql: '1', params: [] });
    const sql = filterToSql(parseFilter('name = "projects/-/devices/d1"', testSchema), store.target);
    expect(sql.sql).toContain('outpost_name_match(c_name, ?)');
    expect(sql.params).toEqual(['projects/-/devices/d1']);
  });

  it('evaluates resources that are not objects as having no fields', () => {
    const filter = parseFilter('spec.count != 1', testSchema);
    for (const resource of [null, undefined, 'x', 3, []]) expect(evaluateFilter(filter, resource)).toBe(true);
    expect(evaluateFilter(parseFilter('spec.count = 1', testSchema), { spec: [1] })).toBe(false);
  });
});
