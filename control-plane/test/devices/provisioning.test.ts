/**
 * What provisioning tells the control plane: the device type and the OS version a device ships with are known
 * from the moment it is provisioned (or registers itself), so the rules of a spec.osVersion write hold before
 * its agent ever reported.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { runCli } from '../cli/harness.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { publishSimVersion } from '../web/os-catalog-fixture.js';

const parent = 'projects/factory/regions/eu';
let server: TestServer;
let work: string;
beforeAll(async () => {
  server = await startTestServer();
  work = mkdtempSync(join(tmpdir(), 'outpost-provision-'));
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
  await publishSimVersion(server, '1.2.0');
  await publishSimVersion(server, '2.0.0', '1.2.0');
});
afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

const outpost = (...argv: string[]) =>
  runCli(argv, {
    env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    register: (program, ctxFactory) => registerDeviceCommands(program, ctxFactory),
  });
const setVersion = (name: string, osVersion: string) =>
  server.admin.update<Device>({ name, spec: { osVersion } }, { updateMask: 'spec.osVersion' });
const post = (path: string, body: unknown, authorization = `Bearer ${TEST_ADMIN_KEY}`): Promise<Response> =>
  fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('outpost devices provision --device-type T --factory-version V', () => {
  it('records the type and the version on the device: before its agent reports, the OS-version rules hold', async (context) => {
    const id = perAttempt(context, 'fresh-1');
    const name = `${parent}/devices/${id}`;
    const root = join(work, id);
    const provisioned = await outpost(
      'devices',
      'provision',
      name,
      '--device-root',
      root,
      '--device-type',
      'sim',
      '--factory-version',
      '1.0.0',
    );
    expect(provisioned.code, provisioned.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'config', 'droplet.json'), 'utf8'))).toMatchObject({
      deviceType: 'sim',
      factoryVersion: '1.0.0',
    });
    const before = await server.admin.get<Device>(name);
    expect(before.status?.deviceInfo).toEqual({ deviceType: 'sim', osVersion: '1.0.0' });
    expect(before.status?.connectionStatus).toBe('DISCONNECTED');

    await expect(setVersion(name, '2.0.0')).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringContaining('at least 1.2.0; it runs 1.0.0'),
    });
    await expect(setVersion(name, '9.9.9')).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: 'version 9.9.9 is not published for device type sim',
    });
    expect(await server.admin.get(name)).toEqual(before);
    const accepted = await setVersion(name, '1.2.0');
    expect(accepted.status?.conditions).toContainEqual(expect.objectContaining({ type: 'OSReady', reason: 'Pending' }));
  });

  it('keeps what the device itself reported when it is provisioned again', async (context) => {
    const id = perAttempt(context, 'known-1');
    const name = `${parent}/devices/${id}`;
    server.engine.resource('devices').put({
      name,
      status: { deviceInfo: { deviceType: 'sim', osVersion: '1.2.0', architecture: 'amd64' } },
    });
    const again = await outpost(
      'devices',
      'provision',
      name,
      '--device-root',
      join(work, id),
      '--device-type',
      'other',
      '--factory-version',
      '1.0.0',
    );
    expect(again.code, again.stderr).toBe(0);
    const device = await server.admin.get<Device>(name);
    expect(device.status?.deviceInfo).toEqual({ deviceType: 'sim', osVersion: '1.2.0', architecture: 'amd64' });
    await setVersion(name, '2.0.0');
  });

  it(':provision refuses a malformed type or version with INVALID_ARGUMENT and changes nothing', async (context) => {
    const id = perAttempt(context, 'bad-1');
    const name = `${parent}/devices/${id}`;
    await server.admin.create(parent, 'devices', { name });
    const { credential } = (await (await post(`${name}:issueCredential`, {})).json()) as { credential: string };
    const before = await server.admin.get(name);
    for (const body of [{ factoryVersion: 'latest' }, { deviceType: 'no such/type' }, { deviceType: 7 }, []]) {
      const res = await post(`${name}:provision`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = (await res.json()) as { error: { status: string; message: string } };
      expect(error.status).toBe('INVALID_ARGUMENT');
    }
    expect((await post(`${name}:provision`, { factoryVersion: 'latest' })).status).toBe(400);
    expect(await server.admin.get(name)).toEqual(before);
    // a refused request did not rotate the credential: it still authenticates (404 for an absent artifact, not 401)
    const withCredential = await fetch(`${server.url}/v1/artifacts/${'0'.repeat(64)}`, {
      headers: { authorization: `Bearer ${credential}` },
    });
    expect(withCredential.status).toBe(404);
    expect((await post(`${parent}/devices/absent-1:provision`, {})).status).toBe(404);
  });
});

describe('self-registration with a provisioning token', () => {
  it('records the device type and OS version the device registers with', async (context) => {
    const id = perAttempt(context, 'self-1');
    const { token } = (await (await post(`${parent}/devices:createProvisioningToken`, {})).json()) as {
      token: string;
    };
    const res = await post(
      `${parent}/devices:register`,
      { deviceId: id, deviceInfo: { deviceType: 'sim', osVersion: '1.0.0', architecture: 'amd64' } },
      `Bearer ${token}`,
    );
    expect(res.status).toBe(200);
    const name = `${parent}/devices/${id}`;
    expect((await server.admin.get<Device>(name)).status?.deviceInfo).toEqual({
      deviceType: 'sim',
      osVersion: '1.0.0',
    });
    await expect(setVersion(name, '2.0.0')).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
  });
});
