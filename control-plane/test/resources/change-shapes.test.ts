import { describe, expect, it } from 'vitest';
import { changedPaths } from '@outpost/shared';
import { changedMemberPaths, encodePaths, priorFilterValues, priorValuesAt } from '../../src/resources/change-facts.js';
import { ChangeShapes } from '../../src/resources/change-shapes.js';
import { widgetDefinition } from '../helpers/widgets.js';

const schema = widgetDefinition.filterSchema;

const before = {
  name: 'projects/p1/regions/r1/widgets/w1',
  metadata: { updateTime: '2026-01-01T00:00:00.000Z', labels: { zone: 'a' }, resourceVersion: '7' },
  spec: { color: 'red', size: 1 },
};

describe('change shapes', () => {
  it('give the encoding and the previous filter values that computing them for the update gives', () => {
    const shapes = new ChangeShapes();
    const updates = [
      { ...before, metadata: { ...before.metadata, updateTime: '2026-01-02T00:00:00.000Z', resourceVersion: '8' } },
      { ...before, spec: { color: 'blue', size: 2 } },
      { ...before, metadata: { ...before.metadata, labels: { zone: 'b' } }, spec: { color: 'green', size: 1 } },
    ];
    for (let round = 0; round < 2; round++) {
      for (const after of updates) {
        const changed = changedMemberPaths(before, after);
        const shape = shapes.of('widgets', changed, schema);
        expect(shape.encoded).toBe(encodePaths(changed));
        expect(priorValuesAt(before, shape.touched)).toEqual(priorFilterValues(before, changed, schema));
      }
    }
  });

  it('tell apart lists whose paths hold the separator of their key', () => {
    const shapes = new ChangeShapes();
    const joined = shapes.of('widgets', ['spec.a\nspec.b'], schema);
    const apart = shapes.of('widgets', ['spec.a', 'spec.b'], schema);
    expect(joined.encoded).toBe(encodePaths(['spec.a\nspec.b']));
    expect(apart.encoded).toBe(encodePaths(['spec.a', 'spec.b']));
    expect(shapes.of('widgets', ['spec.a\nspec.b'], schema).encoded).toBe(joined.encoded);
  });

  it('keep each kind apart: the same paths touch the filter fields of its own schema', () => {
    const shapes = new ChangeShapes();
    expect(shapes.of('widgets', ['spec.color'], schema).touched).toEqual(['spec.color']);
    expect(shapes.of('others', ['spec.color'], { fields: [] }).touched).toEqual([]);
  });
});

describe('changed member paths', () => {
  it('are sorted as changedPaths sorts them, for few and for many changed leaves', () => {
    // keys in an order their sort changes: capitals before small letters, digits before both, non-ASCII last
    const keys = ['b', 'B', 'é', 'a1', 'a', 'A', '10', '9', 'z', 'Z', '_', 'ab', 'aB', 'x.y', 'ü', 'Ω', 'c', 'C'];
    for (const count of [2, 3, 5, keys.length]) {
      const chosen = keys.slice(0, count);
      const from = Object.fromEntries(chosen.map((key, i) => [key, i]));
      const to = Object.fromEntries(chosen.map((key, i) => [key, i + 1]));
      const nested = { ...from, m: { ...from } };
      const nestedTo = { ...to, m: { ...to } };
      expect(changedMemberPaths(from, to)).toEqual(changedPaths(from, to));
      expect(changedMemberPaths(nested, nestedTo)).toEqual(changedPaths(nested, nestedTo));
    }
  });

  it('list a member that changed between a leaf and an object as changedPaths does', () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ a: 1 }, { a: { b: 1 } }],
      [{ a: { b: 1 } }, { a: [1] }],
      [{ a: [1, 2] }, { a: [1, 3] }],
      [{ a: [1, 2] }, { a: [1, 2] }],
      [{ a: null }, { a: {} }],
      [{}, { a: {} }],
      [{ a: 'x' }, {}],
    ];
    for (const [from, to] of cases) expect(changedMemberPaths(from, to)).toEqual(changedPaths(from, to));
  });
});
