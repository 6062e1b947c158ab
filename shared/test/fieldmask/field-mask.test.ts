import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/errors/api-error.js';
import { fieldTreeFromZod, parseFieldMask, toLowerCamel } from '../../src/fieldmask/index.js';
import type { FieldTree } from '../../src/fieldmask/index.js';

const device = z.object({
  name: z.string(),
  displayName: z.string().optional(),
  metadata: z
    .object({
      labels: z.record(z.string(), z.string()).default({}),
      annotations: z.record(z.string(), z.string()).optional(),
      tags: z.array(z.string()).optional(),
      generation: z.number().int().default(0),
    })
    .optional(),
  spec: z.object({
    osVersion: z.string().nullable().optional(),
    healthChecks: z.array(z.object({ name: z.string() })).optional(),
    netplanApiConfigMode: z.enum(['MERGE', 'REPLACE']).optional(),
  }),
  status: z
    .object({
      connectionStatus: z.enum(['CONNECTED', 'DISCONNECTED']).optional(),
      deviceInfo: z.object({ osVersion: z.string(), hardwareInformation: z.object({ productName: z.string() }) }),
      networkInterfaces: z.record(z.string(), z.object({ ipAddressV4: z.array(z.string()) })).optional(),
    })
    .readonly()
    .optional(),
});
const tree = fieldTreeFromZod(device);

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('toLowerCamel', () => {
  it('turns snake and kebab case into lowerCamel', () => {
    expect(toLowerCamel('os_version')).toBe('osVersion');
    expect(toLowerCamel('os-version')).toBe('osVersion');
    expect(toLowerCamel('osVersion')).toBe('osVersion');
    expect(toLowerCamel('ip_address_v4')).toBe('ipAddressV4');
    expect(toLowerCamel('name')).toBe('name');
  });
});

describe('fieldTreeFromZod', () => {
  it('walks objects, wrappers, records, arrays and enums', () => {
    expect(tree.kind).toBe('object');
    if (tree.kind !== 'object') return;
    expect(Object.keys(tree.members)).toEqual(['name', 'displayName', 'metadata', 'spec', 'status']);
    const metadata = tree.members['metadata'];
    expect(metadata?.kind).toBe('object');
    if (metadata?.kind !== 'object') return;
    expect(metadata.members['labels']).toEqual({ kind: 'map', value: { kind: 'leaf' } });
    expect(metadata.members['tags']).toEqual({ kind: 'leaf' });
    expect(metadata.members['generation']).toEqual({ kind: 'leaf' });
  });

  it('merges the members of union options and intersections', () => {
    const u = fieldTreeFromZod(
      z.object({
        request: z.union([
          z.object({ assign: z.object({ plan: z.string() }) }),
          z.object({ unassign: z.object({ region: z.string() }) }),
        ]),
        both: z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })),
      }),
    );
    expect(parseFieldMask('request.assign.plan,request.unassign.region,both.a,both.b', u)).toHaveLength(4);
  });

  it('follows pipes and lazy, recursive schemas', () => {
    interface Node {
      value: string;
      child?: Node;
    }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ value: z.string(), child: node.optional() }));
    const t = fieldTreeFromZod(
      z.object({
        root: node,
        n: z.string().transform((s) => s.length),
        p: z.preprocess((v) => v, z.object({ q: z.string() })),
      }),
    );
    expect(parseFieldMask('root.child.child.child.value,n,p.q', t)).toEqual([
      'root.child.child.child.value',
      'n',
      'p.q',
    ]);
    expect(() => parseFieldMask('root.child.other', t)).toThrow(ApiError);
  });
});

describe('parseFieldMask', () => {
  it('accepts comma-separated and repeated paths, normalising snake, camel and kebab case', () => {
    expect(parseFieldMask('spec.os_version, display-name', tree)).toEqual(['spec.osVersion', 'displayName']);
    expect(
      parseFieldMask(['spec.osVersion', 'status.device_info.hardware-information.product_name,name'], tree),
    ).toEqual(['spec.osVersion', 'status.deviceInfo.hardwareInformation.productName', 'name']);
  });

  it('removes duplicates and empty entries', () => {
    expect(parseFieldMask('name,,name, spec.os_version,spec.osVersion,', tree)).toEqual(['name', 'spec.osVersion']);
    expect(parseFieldMask(undefined, tree)).toEqual([]);
    expect(parseFieldMask('', tree)).toEqual([]);
    expect(parseFieldMask([], tree)).toEqual([]);
  });

  it('keeps map keys verbatim', () => {
    expect(parseFieldMask('metadata.labels.wave_canary,metadata.annotations.Some-Key', tree)).toEqual([
      'metadata.labels.wave_canary',
      'metadata.annotations.Some-Key',
    ]);
    expect(parseFieldMask('status.network_interfaces.eth_0.ip_address_v4', tree)).toEqual([
      'status.networkInterfaces.eth_0.ipAddressV4',
    ]);
    expect(parseFieldMask('metadata.labels', tree)).toEqual(['metadata.labels']);
  });

  it('refuses unknown paths, paths into leaves and arrays, and empty segments', () => {
    for (const path of [
      'nope',
      'spec.nope',
      'name.first',
      'metadata.tags.x',
      'spec.healthChecks.name',
      'metadata.labels.env.x',
      'spec.',
      '.spec',
      'Spec',
      'constructor',
      'spec.__proto__',
    ]) {
      const err = apiErrorOf(() => parseFieldMask(`name,${path}`, tree));
      expect(err.status).toBe('INVALID_ARGUMENT');
      expect(err.message).toBe(`unknown field "${path}" in field mask`);
    }
  });

  it('works on a hand-built tree', () => {
    const handmade: FieldTree = { kind: 'object', members: { a: { kind: 'map', value: { kind: 'leaf' } } } };
    expect(parseFieldMask('a.b_c', handmade)).toEqual(['a.b_c']);
  });
});
