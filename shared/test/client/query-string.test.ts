import { describe, it, expect } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { flattenQuery } from '../../src/client/index.js';

describe('flattenQuery', () => {
  it('flattens grpc-gateway style', () => {
    const params = flattenQuery({
      updateMask: 'spec.osVersion',
      allowMissing: true,
      pageSize: 20,
      names: ['a', 'b'],
      cas: { fieldMask: 'displayName', conditionalState: { displayName: 'old', metadata: { labels: { env: 'x' } } } },
      responseMask: { bodyMask: undefined, skipEntireResponseBody: false },
      skipped: undefined,
      nothing: null,
      at: new Date('2024-01-02T03:04:05.000Z'),
    });
    expect([...params]).toEqual([
      ['updateMask', 'spec.osVersion'],
      ['allowMissing', 'true'],
      ['pageSize', '20'],
      ['names', 'a'],
      ['names', 'b'],
      ['cas.fieldMask', 'displayName'],
      ['cas.conditionalState.displayName', 'old'],
      ['cas.conditionalState.metadata.labels.env', 'x'],
      ['responseMask.skipEntireResponseBody', 'false'],
      ['at', '2024-01-02T03:04:05.000Z'],
    ]);
  });

  it('encodes special characters', () => {
    expect(flattenQuery({ filter: 'metadata.labels CONTAINS "wave:canary" & x=1' }).toString()).toBe(
      'filter=metadata.labels+CONTAINS+%22wave%3Acanary%22+%26+x%3D1',
    );
  });

  it('refuses values a query string cannot carry', () => {
    expect(() => flattenQuery({ list: [{ a: 1 }] })).toThrow(ApiError);
    expect(() => flattenQuery({ f: () => 1 })).toThrow(/query parameter "f"/);
  });
});
