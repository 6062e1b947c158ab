import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedPaths, deepEqual } from '../../src/fieldmask/diff.js';

// Plain oracles of what diff.ts computes without allocating: key arrays, their union, Array.prototype.sort.
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function equalOracle(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equalOracle(v, b[i]));
  if (!isObject(a) || !isObject(b) || Array.isArray(a) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equalOracle(a[k], b[k]));
}

function changedOracle(before: unknown, after: unknown, path = ''): string[] {
  const bothObjectsOrAbsent =
    (isObject(before) || before === undefined) &&
    (isObject(after) || after === undefined) &&
    (isObject(before) || isObject(after));
  if (!bothObjectsOrAbsent) return equalOracle(before, after) ? [] : [path];
  const a = isObject(before) ? before : {};
  const b = isObject(after) ? after : {};
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  if (keys.length === 0) return isObject(before) !== isObject(after) ? [path] : [];
  const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
  return keys.flatMap((k) => changedOracle(own(a, k), own(b, k), path === '' ? k : `${path}.${k}`)).sort();
}

// small key and value sets, so that two documents often share members, differ in a few, or nest empty objects
const key = fc.constantFrom('a', 'b', 'c', '__proto__', 'Z', 'a.b', '');
const leaf = fc.constantFrom<unknown>(0, 1, -0, 'x', 'y', true, null, NaN);
const { doc } = fc.letrec<{ doc: Record<string, unknown>; value: unknown }>((tie) => ({
  doc: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('doc'), fc.array(tie('value'), { maxLength: 3 })),
}));
/** a document and an edit of it that keeps some of its members (the same objects) */
const pair = doc.chain((before) =>
  fc.tuple(
    fc.constant(before),
    fc.oneof(
      doc,
      fc.record({ keep: doc }).map(({ keep }) => ({ ...before, ...keep })),
    ),
  ),
);

describe('changedPaths and deepEqual walk own keys without key arrays', () => {
  it('list what the plain definitions list, on random documents (fixed seed)', () => {
    fc.assert(
      fc.property(pair, ([before, after]) => {
        expect(changedPaths(before, after)).toEqual(changedOracle(before, after));
        expect(deepEqual(before, after)).toBe(equalOracle(before, after));
        expect(deepEqual(after, before)).toBe(equalOracle(after, before));
        expect(deepEqual(before, structuredClone(before))).toBe(true);
      }),
      { seed: 22, numRuns: 2000 },
    );
  });

  it('count a member that only one side has, and "__proto__" as a plain key', () => {
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    const proto = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(changedPaths({}, proto)).toEqual(['__proto__.x']);
    expect(deepEqual(proto, JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    expect(deepEqual(proto, {})).toBe(false);
  });
});
