import fc from 'fast-check';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqlValueOf } from '../../../../src/resources/storage/sql/sql-columns.js';

/** The filter columns are bound from JS: each must hold what json_extract(doc, path) would have given. */
describe('sqlValueOf', () => {
  const db = new Database(':memory:');
  const same = db.prepare<unknown[], { same: number; type: number }>(
    "SELECT json_extract(?, '$.v') IS ? AS same, typeof(json_extract(?, '$.v')) = typeof(?) AS type",
  );
  const agrees = (value: unknown): void => {
    const doc = JSON.stringify({ v: value });
    const row = same.get(doc, sqlValueOf(value), doc, sqlValueOf(value));
    expect({ value, same: row?.same, type: row?.type }).toEqual({ value, same: 1, type: 1 });
  };

  it('agrees with json_extract on scalars, type included', () => {
    for (const value of [
      undefined,
      null,
      '',
      'text',
      0,
      -0,
      7,
      -12,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 62,
      -(2 ** 63),
      2 ** 63,
      2.5,
      -1e-7,
      1e300,
      true,
      false,
    ]) {
      agrees(value);
    }
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.double({ min: -1e22, max: 1e22, noNaN: true }).map(Math.round),
          fc.boolean(),
        ),
        (value) => agrees(value),
      ),
      { numRuns: 2000 },
    );
  });

  it('gives objects and arrays as their JSON text', () => {
    agrees({ a: 1, b: ['x', 'y'] });
    agrees([1, 'two', null]);
  });
});
