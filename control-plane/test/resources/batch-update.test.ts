import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * `POST /v1/{parent}/devices:batchUpdate`: many masked updates in one call, each with the rules of a PUT
 * (here the OS catalog's refusal of a version not published for the device's type); all or nothing by default,
 * each alone with allowPartialSuccess; bad input is a 400 that changes nothing.
 */
let server: TestServer;
const parent = 'projects/fleet/regions/eu';
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const { privateKey } = generateKeyPairSync('ed25519');
const name = (id: string): string => `${parent}/devices/${id}`;

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
  const res = await fetch(`${server.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: randomBytes(1000) });
  const { sha256, size } = (await res.json()) as { sha256: string; size: number };
  await server.admin.create('', 'osVersions', {
    name: 'osVersions/sim-1.1.0',
    version: '1.1.0',
    deviceType: 'deviceTypes/sim',
    artifact: { sha256, size },
    signature: sign(null, Buffer.from(sha256, 'hex'), privateKey).toString('base64'),
  });
  for (const [id, type] of [
    ['sim-1', 'sim'],
    ['sim-2', 'sim'],
    ['other-1', 'other'],
  ] as const) {
    await server.admin.create(parent, 'devices', { name: name(id), metadata: { labels: { site: 'berlin' } } });
    const provisioned = await fetch(`${server.url}/v1/${name(id)}:provision`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ deviceType: type, factoryVersion: '1.0.0' }),
    });
    expect(provisioned.status).toBe(200);
  }
});
afterAll(async () => server.dispose());

const batchUpdate = (body: unknown, at = parent) =>
  fetch(`${server.url}/v1/${at}/devices:batchUpdate`, { method: 'POST', headers: auth, body: JSON.stringify(body) });

const setVersion = (id: string, version: string) => ({
  device: { name: name(id), spec: { osVersion: version } },
  updateMask: 'spec.osVersion',
});

async function desired(): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for (const id of ['sim-1', 'sim-2', 'other-1']) {
    out[id] = (await server.admin.get<Device>(name(id))).spec?.osVersion;
  }
  return out;
}

describe('devices:batchUpdate', () => {
  it('is all or nothing by default: a refused update answers its error and nothing changes', async () => {
    const res = await batchUpdate({ requests: [setVersion('sim-1', '1.1.0'), setVersion('other-1', '1.1.0')] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('FAILED_PRECONDITION');
    expect(body.error.message).toMatch(/not published for device type other/);
    expect(await desired()).toEqual({ 'sim-1': undefined, 'sim-2': undefined, 'other-1': undefined });
  });

  it('with allowPartialSuccess writes what it may and lists each refusal with its error', async () => {
    const res = await batchUpdate({
      requests: [setVersion('sim-1', '1.1.0'), setVersion('other-1', '1.1.0'), setVersion('sim-2', '1.1.0')],
      allowPartialSuccess: true,
      responseMask: { bodyMask: 'spec.osVersion,status.osReadyReason' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { devices: Device[]; failures: { name: string; error: { status: string } }[] };
    expect(body.devices).toEqual([
      { spec: { osVersion: '1.1.0' }, status: { osReadyReason: 'Pending' } },
      { spec: { osVersion: '1.1.0' }, status: { osReadyReason: 'Pending' } },
    ]);
    expect(body.failures).toEqual([
      {
        name: name('other-1'),
        error: { code: 400, status: 'FAILED_PRECONDITION', message: expect.stringMatching(/not published/) },
      },
    ]);
    expect(await desired()).toEqual({ 'sim-1': '1.1.0', 'sim-2': '1.1.0', 'other-1': undefined });
    // only the masked field changed
    expect((await server.admin.get<Device>(name('sim-1'))).metadata?.labels).toEqual({ site: 'berlin' });
  });

  it('writes an update with a cas only while the cas fields still hold their conditional state', async () => {
    const setSite = (id: string, from: string, to: string) => ({
      device: { name: name(id), metadata: { labels: { site: to } } },
      updateMask: 'metadata.labels',
      cas: { fieldMask: 'metadata.labels', conditionalState: { metadata: { labels: { site: from } } } },
    });
    const res = await batchUpdate({
      requests: [setSite('sim-1', 'berlin', 'oslo'), setSite('sim-2', 'paris', 'oslo')],
      allowPartialSuccess: true,
      responseMask: { skipEntireResponseBody: true },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { failures: { name: string; error: { status: string } }[] };
    expect(body.failures).toEqual([{ name: name('sim-2'), error: expect.objectContaining({ status: 'ABORTED' }) }]);
    const labels = async (id: string) => (await server.admin.get<Device>(name(id))).metadata?.labels;
    expect([await labels('sim-1'), await labels('sim-2')]).toEqual([{ site: 'oslo' }, { site: 'berlin' }]);
    const back = await batchUpdate({ requests: [setSite('sim-1', 'oslo', 'berlin')] });
    expect(back.status).toBe(200);
    expect(await labels('sim-1')).toEqual({ site: 'berlin' });
  });

  it('refuses bad input with a 400 naming the request, changing nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /non-empty "requests"/],
      [{ requests: [{ device: { name: name('sim-1'), spec: { osVersion: '1.0.0' } } }] }, /updateMask is required/],
      [{ requests: [{ ...setVersion('sim-1', '1.0.0'), updateMask: '' }] }, /updateMask is required/],
      [{ requests: [setVersion('sim-1', '1.0.0'), setVersion('sim-1', '1.0.0')] }, /updated twice/],
      [{ requests: [{ ...setVersion('sim-1', '1.0.0'), cas: {} }] }, /cas.fieldMask must name/],
      [{ requests: [{ ...setVersion('sim-1', '1.0.0'), cas: 'x' }] }, /cas must be an object/],
      [{ requests: [{ ...setVersion('sim-1', '1.0.0'), force: true }] }, /unknown field "force"/],
      [{ requests: [setVersion('sim-1', '1.0.0')], force: true }, /unknown field "force"/],
      [{ requests: [setVersion('sim-1', '1.0.0')], allowPartialSuccess: 'yes' }, /allowPartialSuccess/],
      [
        {
          requests: [{ device: { name: 'projects/elsewhere/regions/eu/devices/sim-1' }, updateMask: 'spec.osVersion' }],
        },
        /not in parent/,
      ],
      [{ requests: Array.from({ length: 1001 }, (_, i) => setVersion(`d-${i}`, '1.0.0')) }, /at most 1000/],
    ];
    for (const [body, message] of cases) {
      const res = await batchUpdate(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
    expect(await desired()).toEqual({ 'sim-1': '1.1.0', 'sim-2': '1.1.0', 'other-1': undefined });
  });

  it('takes a wildcard region in the parent, and needs devices.update on every device', async () => {
    const wildcard = await batchUpdate({ requests: [setVersion('sim-1', '1.0.0')] }, 'projects/fleet/regions/-');
    expect(wildcard.status).toBe(200);
    const created = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: {
        displayName: 'readonly',
        grants: [{ permission: 'services/devices.outpost/permissions/devices.get', scope: 'projects/fleet' }],
      },
    });
    const res = await fetch(`${server.url}/v1/${parent}/devices:batchUpdate`, {
      method: 'POST',
      headers: { ...auth, authorization: `Bearer ${created.secret}` },
      body: JSON.stringify({ requests: [setVersion('sim-2', '1.0.0')] }),
    });
    expect(res.status).toBe(403);
    expect(await desired()).toEqual({ 'sim-1': '1.0.0', 'sim-2': '1.1.0', 'other-1': undefined });
  });
});
