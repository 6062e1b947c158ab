import { parseFilter } from '@outpost/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { cases, docs } from '../../../../../shared/test/query/filter-cases.js';
import { testSchema } from '../../../../../shared/test/query/test-schema.js';
import { filterToSql } from '../../../../src/resources/storage/sql/filter-to-sql.js';
import { SqliteStore } from './sqlite-store.js';

/** The documented semantics of the filter language (shared/test/query/filter-cases.ts), through filterToSql. */
describe('filterToSql follows the documented semantics (as evaluateFilter does)', () => {
  const store = new SqliteStore(testSchema);
  store.load(docs);
  afterAll(() => store.close());

  it.each(cases)('%s', (text, expected) => {
    expect(store.select(parseFilter(text, testSchema))).toEqual(expected);
  });

  it('compiles an empty filter to 1 and wildcard names to the registered function', () => {
    expect(filterToSql(parseFilter('', testSchema), store.target)).toEqual({ sql: '1', params: [] });
    const sql = filterToSql(parseFilter('name = "projects/-/devices/d1"', testSchema), store.target);
    expect(sql.sql).toContain('outpost_name_match(c_name, ?)');
    expect(sql.params).toEqual(['projects/-/devices/d1']);
  });
});
