import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const parent = 'projects/acme/regions/eu';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

const put = (path: string, body: unknown, query = ''): Promise<Response> =>
  fetch(`${server.url}/v1/${path}${query}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('device endpoints of spec 000', () => {
  const name = `${parent}/devices/gw-1`;
  beforeAll(async () => {
    await server.admin.create(parent, 'devices', {
      name,
      spec: {
        osVersion: '1.0.0',
        netplanYamlConfig: 'network: {version: 2}',
        sshConfig: { disableSshPassword: true },
      },
      metadata: { labels: { site: 'berlin' } },
    });
  });

  it('a new device is Offline until its agent connects', async () => {
    const device = await server.admin.get<Device>(name);
    expect(device.status?.connectionStatus).toBe('DISCONNECTED');
  });

  it('PUT with updateMask=spec.osVersion changes only that field', async () => {
    const res = await put(name, { spec: { osVersion: '1.1.0' } }, '?updateMask=spec.osVersion');
    expect(res.status).toBe(200);
    const device = (await res.json()) as Device;
    expect(device.spec).toEqual({
      osVersion: '1.1.0',
      netplanYamlConfig: 'network: {version: 2}',
      sshConfig: { disableSshPassword: true },
    });
    expect(device.metadata?.labels).toEqual({ site: 'berlin' });
  });

  it('PUT without updateMask replaces the resource, dropping network and SSH settings; status stays', async () => {
    server.engine
      .resource('devices')
      .patch(name, (d) => ({ ...d, status: { ...(d['status'] as object), deviceInfo: { osVersion: '1.0.0' } } }));
    const res = await put(name, { spec: { osVersion: '1.2.0' }, status: { deviceInfo: { osVersion: 'forged' } } });
    const device = (await res.json()) as Device;
    expect(device.spec).toEqual({ osVersion: '1.2.0' });
    expect(device.metadata?.labels).toBeUndefined();
    expect(device.status?.deviceInfo?.osVersion).toBe('1.0.0');
  });

  it('refuses malformed JSON, an unknown updateMask path, status in the mask and an invalid id; nothing changes', async () => {
    const before = await server.admin.get<Device>(name);
    expect((await put(name, '{"spec":')).status).toBe(400);
    const unknown = await put(name, { spec: {} }, '?updateMask=spec.noSuchThing');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('spec.noSuchThing');
    expect((await put(name, { status: {} }, '?updateMask=status.deviceInfo')).status).toBe(400);
    expect((await put(`${parent}/devices/Bad_ID`, { spec: {} })).status).toBe(400);
    expect(await server.admin.get(name)).toEqual(before);
  });

  it('lists with filter, view NAME and field masks across regions', async () => {
    const devices = server.engine.resource('devices');
    const mk = (
      id: string,
      region: string,
      desired: string,
      running: string | undefined,
      labels: Record<string, string>,
    ) =>
      devices.put({
        name: `projects/rollout/regions/${region}/devices/${id}`,
        metadata: { labels },
        spec: { osVersion: desired },
        status: { connectionStatus: 'CONNECTED', ...(running ? { deviceInfo: { osVersion: running } } : {}) },
      });
    mk('d-done', 'eu', '2.0.0', '2.0.0', { 'wave:canary': '' });
    mk('d-flight', 'us', '2.0.0', '1.0.0', { wave: 'canary' });
    mk('d-never', 'us', '2.0.0', undefined, {});
    mk('d-old', 'eu', '1.0.0', '1.0.0', {});
    const names = async (filter: string): Promise<string[]> =>
      (
        (await server.admin.list<Device>('projects/rollout/regions/-', 'devices', { filter, view: 'NAME' })).devices ??
        []
      ).map((d) => d.name.split('/').pop()!);
    expect(await names('spec.osVersion = "2.0.0" AND status.deviceInfo.osVersion != "2.0.0"')).toEqual([
      'd-flight',
      'd-never',
    ]);
    expect(await names('status.deviceInfo.osVersion = "2.0.0"')).toEqual(['d-done']);
    expect(await names('metadata.labels CONTAINS "wave:canary"')).toEqual(['d-done', 'd-flight']);
    const page = await server.admin.list<Device>('projects/rollout/regions/-', 'devices', { view: 'NAME' });
    expect(page.devices?.[0]).toEqual({ name: 'projects/rollout/regions/eu/devices/d-done' });
    const masked = await server.admin.list<Device>('projects/rollout/regions/eu', 'devices', {
      fieldMask: 'spec.osVersion,status.deviceInfo.osVersion',
    });
    expect(masked.devices?.[0]).toEqual({
      name: 'projects/rollout/regions/eu/devices/d-done',
      spec: { osVersion: '2.0.0' },
      status: { deviceInfo: { osVersion: '2.0.0' } },
    });
  });
});
