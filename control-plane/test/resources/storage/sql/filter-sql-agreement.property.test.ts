import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateFilter, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter } from '@outpost/shared';
import { docArb, filterText } from '../../../../../shared/test/query/filter-arbitraries.js';
import { propertyRuns } from '../../../../../shared/test/query/filter-property-runs.js';
import { testSchema } from '../../../../../shared/test/query/test-schema.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * filterToSql against evaluateFilter on SQLite, over a layout of this test's own (sqlite-store.ts): documents
 * of any shape, JSON null and missing members anywhere (several per name). The control plane's real tables, on
 * SQLite and PostgreSQL, are checked by ../filter-agreement.property.test.ts.
 * Fixed seed; FILTER_PROPERTY_SEED and FILTER_PROPERTY_RUNS explore others (see filter-property-runs.ts).
 */
describe('filterToSql selects exactly what evaluateFilter accepts (real SQLite)', () => {
  const store = new SqliteStore(testSchema);
  afterAll(() => store.close());

  it('for random filters over random documents, and for their negations', () => {
    fc.assert(
      fc.property(filterText, fc.array(docArb, { maxLength: 12 }), (text, generated) => {
        const docs = generated.map((doc) => JSON.parse(JSON.stringify(doc)) as unknown);
        store.load(docs);
        for (const candidate of [text, `NOT (${text})`]) {
          const filter = parseFilter(candidate, testSchema);
          const expected = docs.flatMap((doc, i) => (evaluateFilter(filter, doc) ? [i] : []));
          expect(store.select(filter)).toEqual(expected);
        }
      }),
      propertyRuns(1000),
    );
  });
});

describe('filterToSql: filters at the bounds still run on SQLite (expression depth at most 1000)', () => {
  const store = new SqliteStore(testSchema);
  afterAll(() => store.close());
  const docs = [{ spec: { count: 7 }, metadata: { tags: ['t7'] } }, { spec: { count: 8 } }];
  const agree = (text: string): number[] => {
    expect(text.length).toBeLessThanOrEqual(MAX_FILTER_LENGTH);
    const filter = parseFilter(text, testSchema);
    const expected = docs.flatMap((doc, i) => (evaluateFilter(filter, doc) ? [i] : []));
    expect(store.select(filter)).toEqual(expected);
    return expected;
  };

  it('for hundreds of conditions joined by OR or by AND, and a CONTAINS ANY of 1,600 values', () => {
    store.load(docs);
    const terms = (n: number): string[] => Array.from({ length: n }, (_, i) => `spec.count=${i % 9}`);
    expect(agree(terms(700).join('|'))).toEqual([0, 1]);
    expect(agree(terms(700).join(' '))).toEqual([]);
    const values = Array.from({ length: 1_600 }, (_, i) => `"t${i % 9}"`).join(',');
    expect(agree(`metadata.tags CONTAINS ANY (${values})`)).toEqual([0]);
  });

  it('for MAX_FILTER_DEPTH levels of NOT around ORs', () => {
    store.load(docs);
    const levels = MAX_FILTER_DEPTH / 2;
    const text = 'NOT (spec.count = 1 OR '.repeat(levels) + 'spec.count = 7' + ')'.repeat(levels);
    expect(agree(text)).toEqual([0]);
  });
});
