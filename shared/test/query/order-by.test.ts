import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { parseOrderBy } from '../../src/query/index.js';
import { testSchema } from './test-schema.js';

const paths = (text: string | undefined): [string, boolean][] =>
  parseOrderBy(text, testSchema).map((t) => [t.field.path, t.desc]);

function rejection(text: string): string {
  try {
    parseOrderBy(text, testSchema);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe('INVALID_ARGUMENT');
    return (err as ApiError).message;
  }
  throw new Error(`order_by ${JSON.stringify(text)} was accepted`);
}

describe('parseOrderBy', () => {
  it('is empty for no text', () => {
    expect(paths(undefined)).toEqual([]);
    expect(paths('  ')).toEqual([]);
  });

  it('reads comma-separated terms, asc by default, directions case-insensitive', () => {
    expect(paths('display_name desc, spec.count')).toEqual([
      ['displayName', true],
      ['spec.count', false],
    ]);
    expect(paths('metadata.createTime ASC,name DESC')).toEqual([
      ['metadata.createTime', false],
      ['name', true],
    ]);
  });

  it('accepts every scalar leaf type', () => {
    expect(paths('spec.ratio, spec.enabled, status.state, spec.owner')).toHaveLength(4);
  });

  it('rejects unknown fields, non-scalar fields, map keys, bad directions, empty terms and repeats', () => {
    expect(rejection('nope')).toBe('order_by: unknown field "nope"');
    expect(rejection('metadata.labels')).toMatch(/not a scalar field/);
    expect(rejection('metadata.tags desc')).toMatch(/not a scalar field/);
    expect(rejection('status')).toMatch(/not a scalar field/);
    expect(rejection('metadata.labels.env')).toMatch(/not a scalar field/);
    expect(rejection('name sideways')).toBe('order_by: unknown direction "sideways" for "name" (asc or desc)');
    expect(rejection('name desc extra')).toMatch(/unexpected "extra"/);
    expect(rejection('name,,spec.count')).toMatch(/empty term/);
    expect(rejection('name,')).toMatch(/empty term/);
    expect(rejection('display_name, displayName desc')).toMatch(/appears twice/);
  });
});
