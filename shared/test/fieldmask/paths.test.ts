import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  anyPathAffected,
  applyUpdateMask,
  changedOutside,
  changedPaths,
  deletePath,
  getPath,
  pathTree,
  projectFields,
  setPath,
} from '../../src/fieldmask/index.js';

const stored = () => ({
  name: 'projects/p/regions/r/devices/d1',
  displayName: 'Device 1',
  metadata: { labels: { env: 'prod', 'wave:canary': '' }, annotations: { counter: '1' }, generation: 3 },
  spec: { osVersion: '1.0.0', healthChecks: [{ name: 'http' }] },
  status: { deviceInfo: { osVersion: '1.0.0' } },
});

describe('getPath, setPath, deletePath', () => {
  it('read nested values and undefined for missing ones', () => {
    const doc = stored();
    expect(getPath(doc, 'spec.osVersion')).toBe('1.0.0');
    expect(getPath(doc, 'metadata.labels.wave:canary')).toBe('');
    expect(getPath(doc, 'metadata.labels')).toEqual({ env: 'prod', 'wave:canary': '' });
    expect(getPath(doc, 'spec.nope.deeper')).toBeUndefined();
    expect(getPath(doc, 'name.length')).toBeUndefined();
    expect(getPath(doc, 'spec.healthChecks.0')).toBeUndefined();
    expect(getPath(doc, 'constructor')).toBeUndefined();
    expect(getPath(null, 'a')).toBeUndefined();
  });

  it('set values, creating intermediate objects', () => {
    const doc: Record<string, unknown> = { spec: 'not an object' };
    setPath(doc, 'metadata.labels.env', 'dev');
    setPath(doc, 'spec.osVersion', '2.0.0');
    expect(doc).toEqual({ metadata: { labels: { env: 'dev' } }, spec: { osVersion: '2.0.0' } });
  });

  it('treat "__proto__" map keys as plain keys', () => {
    const doc: Record<string, unknown> = {};
    setPath(doc, 'metadata.labels.__proto__', 'x');
    setPath(doc, '__proto__.polluted', 'yes');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(getPath(doc, 'metadata.labels.__proto__')).toBe('x');
    expect(getPath(doc, '__proto__.polluted')).toBe('yes');
  });

  it('delete values, keeping their parents', () => {
    const doc = stored();
    deletePath(doc, 'metadata.labels.env');
    deletePath(doc, 'spec.osVersion');
    deletePath(doc, 'nothing.here');
    expect(doc.metadata.labels).toEqual({ 'wave:canary': '' });
    expect(doc.spec).toEqual({ healthChecks: [{ name: 'http' }] });
  });
});

describe('projectFields', () => {
  it('copies only the masked paths, whole subtrees for parents', () => {
    const doc = stored();
    expect(projectFields(doc, ['name', 'spec.osVersion', 'metadata.labels'])).toEqual({
      name: doc.name,
      metadata: { labels: { env: 'prod', 'wave:canary': '' } },
      spec: { osVersion: '1.0.0' },
    });
    expect(projectFields(doc, ['spec', 'spec.osVersion'])).toEqual({ spec: doc.spec });
    expect(projectFields(doc, ['spec.osVersion', 'spec'])).toEqual({ spec: doc.spec });
    expect(projectFields(doc, ['metadata.labels.env'])).toEqual({ metadata: { labels: { env: 'prod' } } });
  });

  it('omits absent paths and keeps the document order of keys', () => {
    const doc = stored();
    expect(projectFields(doc, ['status.nope', 'spec.nope', 'nope'])).toEqual({});
    expect(projectFields(doc, ['name.deeper'])).toEqual({});
    expect(Object.keys(projectFields(doc, ['status', 'name', 'spec']))).toEqual(['name', 'spec', 'status']);
  });

  it('returns a deep copy', () => {
    const doc = stored();
    const copy = projectFields(doc, ['spec']);
    copy.spec?.healthChecks.push({ name: 'other' });
    expect(doc.spec.healthChecks).toHaveLength(1);
  });

  it('treats an empty mask as no mask', () => {
    const doc = stored();
    const copy = projectFields(doc, []);
    expect(copy).toEqual(doc);
    expect(copy).not.toBe(doc);
  });
});

describe('applyUpdateMask', () => {
  it('replaces masked paths with the patch values and leaves the rest', () => {
    const before = stored();
    const patch = { name: before.name, spec: { osVersion: '2.0.0' }, displayName: 'ignored' };
    const after = applyUpdateMask(before, patch, ['spec.osVersion']);
    expect(after.spec).toEqual({ osVersion: '2.0.0', healthChecks: [{ name: 'http' }] });
    expect(after.displayName).toBe('Device 1');
    expect(before.spec.osVersion).toBe('1.0.0');
  });

  it('replaces a whole subtree for a parent path', () => {
    const after = applyUpdateMask(stored(), { spec: { osVersion: '2.0.0' } }, ['spec']);
    expect(after.spec).toEqual({ osVersion: '2.0.0' });
  });

  it('removes masked paths the patch lacks', () => {
    const after = applyUpdateMask(stored(), { spec: {} }, ['spec.osVersion', 'displayName', 'metadata.labels.env']);
    expect(after.spec).toEqual({ healthChecks: [{ name: 'http' }] });
    expect('displayName' in after).toBe(false);
    expect(after.metadata.labels).toEqual({ 'wave:canary': '' });
  });

  it('writes map keys and creates missing parents', () => {
    const after = applyUpdateMask({ name: 'x' }, { metadata: { annotations: { counter: '2' } } }, [
      'metadata.annotations.counter',
    ]);
    expect(after).toEqual({ name: 'x', metadata: { annotations: { counter: '2' } } });
  });

  it('does not share objects with the patch', () => {
    const patch = { spec: { healthChecks: [{ name: 'a' }] } };
    const after = applyUpdateMask(stored(), patch, ['spec.healthChecks']);
    patch.spec.healthChecks.push({ name: 'b' });
    expect(after.spec.healthChecks).toEqual([{ name: 'a' }]);
  });

  it('changes nothing with an empty mask', () => {
    expect(applyUpdateMask(stored(), { spec: {} }, [])).toEqual(stored());
  });
});

describe('changedPaths', () => {
  it('lists leaf paths that differ, sorted', () => {
    const before = stored();
    const after = stored();
    after.spec.osVersion = '2.0.0';
    after.metadata.labels.env = 'dev';
    after.metadata.generation = 4;
    expect(changedPaths(before, after)).toEqual(['metadata.generation', 'metadata.labels.env', 'spec.osVersion']);
    expect(changedPaths(before, stored())).toEqual([]);
  });

  it('compares arrays whole', () => {
    const after = stored();
    after.spec.healthChecks[0] = { name: 'tcp' };
    expect(changedPaths(stored(), after)).toEqual(['spec.healthChecks']);
  });

  it('lists the leaves of added and removed objects', () => {
    expect(changedPaths({ a: 1 }, { a: 1, spec: { x: 1, y: { z: 2 } } })).toEqual(['spec.x', 'spec.y.z']);
    expect(changedPaths({ spec: { x: 1 } }, {})).toEqual(['spec.x']);
    expect(changedPaths({}, { spec: {} })).toEqual(['spec']);
    expect(changedPaths({ spec: {} }, {})).toEqual(['spec']);
  });

  it('lists the path itself when a value changes type', () => {
    expect(changedPaths({ spec: null }, { spec: { x: 1 } })).toEqual(['spec']);
    expect(changedPaths({ spec: [1] }, { spec: { x: 1 } })).toEqual(['spec']);
    expect(changedPaths({ a: 1 }, { a: '1' })).toEqual(['a']);
  });

  it('finds no change between equal documents with different key order', () => {
    expect(changedPaths({ a: { x: 1, y: [1, { b: 2 }] } }, { a: { y: [1, { b: 2 }], x: 1 } })).toEqual([]);
  });
});

describe('anyPathAffected', () => {
  it('counts changes at, under and above a mask path', () => {
    expect(anyPathAffected(['spec.osVersion'], ['spec.osVersion'])).toBe(true);
    expect(anyPathAffected(['spec.osVersion'], ['spec'])).toBe(true);
    expect(anyPathAffected(['spec'], ['spec.osVersion'])).toBe(true);
    expect(anyPathAffected(['metadata.labels.env'], ['metadata.labels'])).toBe(true);
  });

  it('ignores changes elsewhere, including look-alike prefixes', () => {
    expect(anyPathAffected(['status.deviceInfo.osVersion'], ['spec.osVersion', 'name'])).toBe(false);
    expect(anyPathAffected(['specs.x'], ['spec'])).toBe(false);
    expect(anyPathAffected(['spec.osVersionX'], ['spec.osVersion'])).toBe(false);
    expect(anyPathAffected([], ['spec'])).toBe(false);
  });

  it('treats an empty mask as no mask', () => {
    expect(anyPathAffected(['x'], [])).toBe(true);
    expect(anyPathAffected([], [])).toBe(false);
  });
});

describe('masks, property-based', () => {
  // Keys without dots: a dotted path cannot address a key that holds one.
  const { doc } = fc.letrec((tie) => ({
    leaf: fc.oneof(
      fc.integer(),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
    ),
    value: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('doc')),
    doc: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  }));

  it('applying the changed paths of after onto before gives after, but for emptied parents', () => {
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const applied = applyUpdateMask(before, after, changedPaths(before, after));
        for (const path of changedPaths(applied, after)) {
          expect(getPath(applied, path)).toEqual({});
          expect(getPath(after, path)).toBeUndefined();
        }
      }),
    );
  });

  it('changedOutside tells whether changedPaths lists a path that the skipped paths do not cover', () => {
    const paths = fc.array(
      fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }).map((keys) => keys.join('.')),
      { maxLength: 3 },
    );
    const covers = (outer: string, inner: string): boolean => inner === outer || inner.startsWith(`${outer}.`);
    fc.assert(
      fc.property(doc, doc, paths, (before, after, skipped) => {
        const expected = changedPaths(before, after).some((path) => !skipped.some((s) => covers(s, path)));
        expect(changedOutside(before, after, pathTree(skipped))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('changedPaths is empty exactly for equal documents', () => {
    fc.assert(
      fc.property(doc, (d) => {
        expect(changedPaths(d, structuredClone(d))).toEqual([]);
      }),
    );
  });
});
