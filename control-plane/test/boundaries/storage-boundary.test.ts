import { describe, expect, it } from 'vitest';
import { controlPlaneSources } from './control-plane-sources.js';

/**
 * The storage boundary (issue 22): outside the resource engine (control-plane/src/resources, whose storage/ folder
 * opens the database), no code writes SQL or reaches into the engine's tables; services use
 * typed handles, engine queries, units of work and the engine's stores (ResourceEngine.stores: API keys, device
 * credentials, provisioning tokens, metrics history). (The database drivers themselves are fenced by eslint's
 * no-restricted-imports and no-restricted-syntax, see eslint.config.js and driver-imports.test.ts.)
 */
/** What only the engine may touch: its tables, its database, SQL fragments and prepared statements. */
const REACHING_IN: readonly { what: string; pattern: RegExp }[] = [
  { what: 'an engine table (handle.table)', pattern: /\.table\b/ },
  { what: "the engine's database (engine.db)", pattern: /\bengine\.db\b/ },
  { what: "the engine's storage (engine.storage)", pattern: /\bengine\.storage\b/ },
  {
    what: 'SQL compiled for a table (sqlTarget, filterToSql, SqlFragment)',
    pattern: /\bsqlTarget\b|\bfilterToSql\b|\bSqlFragment\b/,
  },
  { what: 'the SQLite database handle (storage/sqlite/open-database)', pattern: /\/open-database\b/ },
  { what: 'a prepared statement or SQL script', pattern: /\.prepare(<[^>]*>)?\(|\bdb\.exec\(/ },
];

const insideTheEngine = (file: string): boolean => file.startsWith('resources/');

describe('the storage boundary', () => {
  it('no service writes SQL or reaches into the engine', async () => {
    const reaching: [string, string[]][] = [];
    for (const { file, text } of await controlPlaneSources()) {
      if (insideTheEngine(file)) continue;
      const found = REACHING_IN.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
      if (found.length > 0) reaching.push([file, found]);
    }
    expect(reaching, 'these files reach past the engine: use engine queries (resources/resource-query.ts)').toEqual([]);
  });

  it('would see a service that does (the patterns match what they are meant to)', () => {
    const samples = [
      'handle.table.version',
      'engine.db.pragma("x")',
      'pgUnclaimedLinks(engine.storage)',
      "import { filterToSql } from '../resources/sql.js'",
      "import type { Db } from '../resources/storage/sqlite/open-database.js'",
      "db.prepare<[string]>('SELECT 1')",
      "db.exec('CREATE TABLE t (x)')",
    ];
    expect(samples.map((text) => REACHING_IN.filter(({ pattern }) => pattern.test(text)).length)).toEqual(
      samples.map(() => 1),
    );
  });
});
