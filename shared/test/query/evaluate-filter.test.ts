import { describe, expect, it } from 'vitest';
import { evaluateFilter, parseFilter } from '../../src/query/index.js';
import { cases, docs } from './filter-cases.js';
import { testSchema } from './test-schema.js';

/** The stores' SQL is held to the same cases: control-plane/test/resources/storage/sql/filter-sql.test.ts. */
describe('evaluateFilter follows the documented semantics', () => {
  it.each(cases)('%s', (text, expected) => {
    const filter = parseFilter(text, testSchema);
    const inMemory = docs.flatMap((doc, i) => (evaluateFilter(filter, doc) ? [i] : []));
    expect(inMemory).toEqual(expected);
  });

  it('evaluates resources that are not objects as having no fields', () => {
    const filter = parseFilter('spec.count != 1', testSchema);
    for (const resource of [null, undefined, 'x', 3, []]) expect(evaluateFilter(filter, resource)).toBe(true);
    expect(evaluateFilter(parseFilter('spec.count = 1', testSchema), { spec: [1] })).toBe(false);
  });
});
