import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../src/openapi/openapi-types.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * `GET /v1/{parent}/devices:counts`: the fleet overview's numbers counted by the server (no device sent), checked
 * like a list, refusing bad input with 400, with a resume token from which a stateless watch tells what changed.
 */
let server: TestServer;
const EU = 'projects/counted/regions/eu';
const US = 'projects/counted/regions/us';
const ALL = 'projects/counted/regions/-';

interface Counts {
  total: number;
  byField: { field: string; values: { value: unknown; count: number }[]; more: boolean }[];
  counts: Record<string, number>;
  resumeToken: string;
}

const healthy = (status: 'True' | 'False'): Record<string, unknown> => ({
  type: 'Healthy/web',
  status,
  reason: status === 'True' ? 'Passing' : 'Failing',
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00.000Z',
});

/** A device with this status (created first: a new device starts DISCONNECTED whatever it is given). */
function putDevice(parent: string, id: string, status: Record<string, unknown>): void {
  const devices = server.engine.resource('devices');
  const name = `${parent}/devices/${id}`;
  devices.put({ name });
  devices.patch(name, (doc) => ({ ...doc, status }));
}

async function get(path: string, apiKey = TEST_ADMIN_KEY): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, body: await res.json() };
}

async function counts(parent: string, query: string): Promise<Counts> {
  const answer = await get(`/v1/${parent}/devices:counts?${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Counts;
}

const valuesOf = (answer: Counts, field: string): Record<string, number> =>
  Object.fromEntries(
    (answer.byField.find((f) => f.field === field)?.values ?? []).map((v) => [String(v.value), v.count]),
  );

beforeAll(async () => {
  server = await startTestServer();
  putDevice(EU, 'e1', { connectionStatus: 'CONNECTED', deviceInfo: { osVersion: '1.0.0' } });
  putDevice(EU, 'e2', {
    connectionStatus: 'CONNECTED',
    deviceInfo: { osVersion: '1.1.0' },
    conditions: [healthy('False')],
  });
  putDevice(EU, 'e3', { connectionStatus: 'DISCONNECTED', deviceInfo: { osVersion: '1.1.0' } });
  putDevice(US, 'u1', { connectionStatus: 'DISCONNECTED', conditions: [healthy('True')] });
}, 60_000);
afterAll(async () => server.dispose());

describe('GET /v1/{parent}/devices:counts', () => {
  it('counts by value, absent values as null, and named filters, within the parent and filter', async () => {
    const all = await counts(
      ALL,
      'by=status.connectionStatus,status.deviceInfo.osVersion&by=status.failingHealthCheckCount' +
        `&count.failing=${encodeURIComponent('status.failingHealthCheckCount > 0')}` +
        `&count.online=${encodeURIComponent('status.connectionStatus = "Online"')}`,
    );
    expect(all.total).toBe(4);
    expect(all.byField.map((f) => [f.field, f.more])).toEqual([
      ['status.connectionStatus', false],
      ['status.deviceInfo.osVersion', false],
      ['status.failingHealthCheckCount', false],
    ]);
    expect(valuesOf(all, 'status.connectionStatus')).toEqual({ CONNECTED: 2, DISCONNECTED: 2 });
    expect(all.byField[1]!.values).toEqual([
      { value: null, count: 1 },
      { value: '1.0.0', count: 1 },
      { value: '1.1.0', count: 2 },
    ]);
    expect(valuesOf(all, 'status.failingHealthCheckCount')).toEqual({ null: 2, 0: 1, 1: 1 });
    expect(all.counts).toEqual({ failing: 1, online: 2 });

    const eu = await counts(
      EU,
      `by=status.deviceInfo.osVersion&filter=${encodeURIComponent('status.connectionStatus = "Online"')}`,
    );
    expect(eu.total).toBe(2);
    expect(valuesOf(eu, 'status.deviceInfo.osVersion')).toEqual({ '1.0.0': 1, '1.1.0': 1 });
    expect(eu.counts).toEqual({});
  });

  it('passes over the values only devices elsewhere hold', async () => {
    putDevice('projects/elsewhere/regions/eu', 'x1', { deviceInfo: { osVersion: '0.1.0' } });
    putDevice('projects/elsewhere/regions/eu', 'x2', { deviceInfo: { osVersion: '9.9.9' } });
    const eu = await counts(EU, 'by=status.deviceInfo.osVersion');
    expect(eu.byField[0]!.values).toEqual([
      { value: '1.0.0', count: 1 },
      { value: '1.1.0', count: 2 },
    ]);
    expect((await counts(ALL, 'by=status.deviceInfo.osVersion')).total).toBe(4);
  });

  it('gives at most maxValues values per field and says there are more', async () => {
    const first = await counts(ALL, 'by=status.deviceInfo.osVersion&maxValues=1');
    expect(first.byField[0]).toEqual({
      field: 'status.deviceInfo.osVersion',
      values: [
        { value: null, count: 1 },
        { value: '1.0.0', count: 1 },
      ],
      more: true,
    });
  });

  it('refuses bad input with 400 and a message naming it', async () => {
    const refusals: [string, RegExp][] = [
      ['by=spec.nope', /by: unknown field "spec.nope"/],
      ['by=metadata.labels', /cannot be counted by "metadata.labels"/],
      ['by=name', /cannot be counted by "name"/],
      ['filter=status.connectionStatus%20%3D', /filter: .*position/],
      ['count.bad=spec.nope%20%3D%201', /count.bad: unknown field "spec.nope"/],
      ['maxValues=0', /maxValues must be an integer from 1 to 1000/],
      ['pageSize=3', /unknown query parameter "pageSize"/],
      [`by=${Array.from({ length: 9 }, (_, i) => `f${i}`).join(',')}`, /at most 8 fields/],
    ];
    for (const [query, message] of refusals) {
      const answer = await get(`/v1/${ALL}/devices:counts?${query}`);
      expect(answer.status, query).toBe(400);
      expect((answer.body as { error: { message: string } }).error.message, query).toMatch(message);
    }
    // a parent of no shape devices have (no region): the request is malformed, and the answer names the shape
    const badParent = await get('/v1/projects/counted/devices:counts');
    expect(badParent.status).toBe(400);
    expect((badParent.body as { error: { message: string } }).error.message).toMatch(
      /invalid parent "projects\/counted" for devices: .*projects\/\{project\}\/regions\/\{region\}/,
    );
  });

  it('is checked like a list: a key granted another project is refused', async () => {
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: {
        displayName: 'elsewhere',
        grants: [{ permission: 'services/devices.outpost/permissions/devices.list', scope: 'projects/other' }],
      },
    });
    const refused = await get(`/v1/${ALL}/devices:counts`, secret);
    expect(refused.status).toBe(403);
    const allowed = await get('/v1/projects/other/regions/-/devices:counts', secret);
    expect(allowed).toMatchObject({ status: 200, body: { total: 0 } });
  });

  it('hands out a resume token from which a stateless watch sends only later changes', async () => {
    const before = await counts(ALL, 'by=status.connectionStatus');
    putDevice(US, 'u2', { connectionStatus: 'CONNECTED' });
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/${ALL}/devices:watch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'STATELESS',
        fieldMask: 'status.connectionStatus',
        resumeToken: before.resumeToken,
      }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    const first = JSON.parse(text.split('\n')[0]!) as { deviceChanges: { current?: { device: { name: string } } }[] };
    expect(first.deviceChanges.map((c) => c.current?.device.name)).toEqual([`${US}/devices/u2`]);
    const after = await counts(ALL, 'by=status.connectionStatus');
    expect(valuesOf(after, 'status.connectionStatus')).toEqual({ CONNECTED: 3, DISCONNECTED: 2 });
  });

  it('is in the OpenAPI document with its parameters, and its answer fits the schema there', async () => {
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    const operation = doc.paths['/v1/projects/{project}/regions/{region}/devices:counts']?.get;
    expect(operation?.['x-outpost-permission']).toBe('services/devices.outpost/permissions/devices.list');
    expect(operation?.parameters?.map((p) => ('name' in p ? p.name : ''))).toEqual([
      'filter',
      'by',
      'maxValues',
      'count',
    ]);
    const response = operation?.responses['200'];
    const schema = response && 'content' in response ? response.content?.['application/json']?.schema : undefined;
    const validate = new Ajv2020({ strict: false }).compile(schema ?? { not: {} });
    expect(
      validate(
        await counts(ALL, 'by=status.deviceInfo.osVersion&count.x=status.connectionStatus%20%3D%20%22Online%22'),
      ),
    ).toBe(true);
    expect(validate({ total: -1, byField: [], counts: {}, resumeToken: '' })).toBe(false);
  });
});
