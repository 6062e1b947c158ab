import { describe, expect, it } from 'vitest';
import { packageSources } from './control-plane-sources.js';

/**
 * SQL only inside the engine's storage folder (issue 22): the engine's generic layer hands the tables its own
 * conditions and sort keys (resources/resource-table.ts: TableQuery), and each store compiles them
 * (control-plane/src/resources/storage/, its sql/ folder for what both stores share). The shared package (the filter
 * language, its in-memory evaluation), the agent and the rest of the control plane write no SQL.
 */
const SQL: readonly { what: string; pattern: RegExp }[] = [
  {
    what: 'a statement (SELECT, INSERT, UPDATE, DELETE)',
    pattern: /\bSELECT |\bINSERT INTO |\bUPDATE \w+ SET |\bDELETE FROM /,
  },
  { what: 'a WHERE clause', pattern: / WHERE / },
  { what: 'a parent condition', pattern: /\bparent (=|IN) [?(]/ },
  { what: 'a null test in SQL', pattern: /\bIS (NOT )?NULL\)/ },
  { what: 'a SQL fragment or sort key ({ sql: ... })', pattern: /\{\s*sql:/ },
  {
    what: 'filter SQL (filterToSql, SqlFragment, SqlTarget, SqlDialect, sqlTarget)',
    pattern: /\b(filterToSql|SqlFragment|SqlTarget|SqlDialect|sqlTarget)\b/,
  },
];

const STORAGE = 'resources/storage/';

describe('SQL stays in the engine storage', () => {
  it('no file of shared/src, agent/src or control-plane/src outside resources/storage/ contains SQL', async () => {
    const found: [string, string[]][] = [];
    for (const pkg of ['shared', 'agent', 'control-plane'] as const) {
      for (const { file, text } of await packageSources(pkg)) {
        if (pkg === 'control-plane' && file.startsWith(STORAGE)) continue;
        const what = SQL.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
        if (what.length > 0) found.push([`${pkg}/src/${file}`, what]);
      }
    }
    expect(found, `SQL belongs in control-plane/src/${STORAGE}: hand the table conditions (TableQuery)`).toEqual([]);
  });

  it('would see a file that does (the patterns match what they are meant to), and not the filter language', () => {
    const sql = [
      'const q = `SELECT id, doc FROM ${table}`;',
      "db.run('INSERT INTO t(x) VALUES (?)');",
      'const u = `UPDATE r_devices SET doc = ?`;',
      "run('DELETE FROM r_devices');",
      'const w = ` WHERE ${conditions.join(" AND ")}`;',
      "where.push({ sql: 'parent = ?', params: [parent] });",
      'const flag = `(${column} IS NOT NULL)`;',
      "keys: [{ sql: 'name', desc: false }]",
      "import { filterToSql } from './filter-to-sql.js';",
      'function f(where: SqlFragment[]) {}',
      'const c = handle.table.sqlTarget.scalar(field);',
    ];
    expect(sql.map((text) => SQL.filter(({ pattern }) => pattern.test(text)).length > 0)).toEqual(sql.map(() => true));
    const filterLanguage = [
      '/** `IS NULL`; `negated` for `IS NOT NULL` (also what `= null` / `!= null` become) */',
      'const text = `${path} IS NULL`;',
      'parseFilter(\'spec.color = "red" AND status.state IS NOT NULL\', schema);',
      "where.parent('projects/p1/regions/eu')",
      "keys: [{ key: 'name', desc: false }]",
    ];
    expect(filterLanguage.filter((text) => SQL.some(({ pattern }) => pattern.test(text)))).toEqual([]);
  });
});
