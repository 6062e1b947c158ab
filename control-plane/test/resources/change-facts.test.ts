import { describe, expect, it } from 'vitest';
import { changedPaths, evaluateFilter, parseFilter } from '@outpost/shared';
import {
  changedMemberPaths,
  decodePaths,
  encodePaths,
  filterView,
  priorFilterValues,
  undoOnView,
} from '../../src/resources/change-facts.js';
import { widgetDefinition } from '../helpers/widgets.js';

const schema = widgetDefinition.filterSchema;

const before = {
  name: 'projects/p1/regions/r1/widgets/w1',
  displayName: 'one',
  metadata: { updateTime: '2026-01-01T00:00:00.000Z', labels: { zone: 'a' }, resourceVersion: '7' },
  spec: { color: 'red', size: 1, network: { dhcp: true } },
  status: { state: 'IDLE', counter: 1 },
};

describe('change facts', () => {
  it('lists the changed paths as changedPaths does, looking only below members that are not shared', () => {
    const after = {
      ...before,
      metadata: { ...before.metadata, updateTime: '2026-01-02T00:00:00.000Z', resourceVersion: '8' },
      spec: { color: 'blue', size: 1, network: {} },
      status: undefined,
      extra: { a: { b: 1 } },
    };
    expect(changedMemberPaths(before, after)).toEqual(changedPaths(before, after));
    expect(changedMemberPaths(before, { ...before })).toEqual([]);
  });

  it('writes paths compactly and reads them back as written', () => {
    const paths = [
      'metadata.resourceVersion',
      'metadata.updateTime',
      'spec.network.address',
      'spec.network.dhcp',
      'spec.size',
      'status',
      'weird:key.with:colons',
    ];
    const encoded = encodePaths(paths);
    expect(decodePaths(encoded)).toEqual(paths);
    expect(encoded.length).toBeLessThan(JSON.stringify(paths).length);
    expect(decodePaths(encodePaths([]))).toEqual([]);
    expect(() => decodePaths('{"a":1}')).toThrow();
  });

  it('keeps the previous values of the filterable fields an update touched, enough to evaluate a filter before it', () => {
    const after = {
      ...before,
      metadata: { ...before.metadata, updateTime: '2026-01-02T00:00:00.000Z', labels: { zone: 'b' } },
      spec: { ...before.spec, color: 'blue', network: { dhcp: false } },
    };
    const changed = changedMemberPaths(before, after);
    const prior = priorFilterValues(before, changed, schema);
    expect(prior).toEqual([
      ['metadata.updateTime', '2026-01-01T00:00:00.000Z'],
      ['metadata.labels', { zone: 'a' }],
      ['spec.color', 'red'],
    ]);
    const view = filterView(after, schema);
    const undone = undoOnView(view, prior);
    expect(undone).toEqual(filterView(before, schema));
    expect(view).toEqual(filterView(after, schema)); // undoing copies, never changes the view
    for (const text of ['spec.color = "red"', 'metadata.labels.zone = "a"', 'metadata.labels CONTAINS "zone:b"']) {
      const filter = parseFilter(text, schema);
      expect(evaluateFilter(filter, undone), text).toBe(evaluateFilter(filter, before));
      expect(evaluateFilter(filter, view), text).toBe(evaluateFilter(filter, after));
    }
  });

  it('a filter view copies what it holds: the document is never changed through it', () => {
    const doc = structuredClone(before);
    const view = filterView(doc, schema);
    const undone = undoOnView(view, [['spec.color', 'green']]);
    expect(doc).toEqual(before);
    expect((undone['spec'] as { color: string }).color).toBe('green');
  });
});
