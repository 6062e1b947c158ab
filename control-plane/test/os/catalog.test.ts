import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import type { Doc } from '../../src/resources/resource-table.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let server: TestServer;
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const { privateKey } = generateKeyPairSync('ed25519');

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
});
afterAll(async () => server.dispose());

async function uploadImage(content: Buffer): Promise<{ sha256: string; size: number }> {
  const res = await fetch(`${server.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: content });
  expect(res.status).toBe(200);
  return (await res.json()) as { sha256: string; size: number };
}

async function publish(version: string, minimumPreviousVersion?: string): Promise<Buffer> {
  const image = randomBytes(50_000);
  const { sha256, size } = await uploadImage(image);
  await server.admin.create('', 'osVersions', {
    name: `osVersions/sim-${version}`,
    version,
    deviceType: 'deviceTypes/sim',
    ...(minimumPreviousVersion ? { minimumPreviousVersion } : {}),
    artifact: { sha256, size },
    signature: sign(null, Buffer.from(sha256, 'hex'), privateKey).toString('base64'),
  });
  return image;
}

function reportedDevice(id: string, running: string, type = 'sim'): string {
  const name = `projects/os/regions/eu/devices/${id}`;
  server.engine.resource('devices').put({
    name,
    status: { connectionStatus: 'CONNECTED', deviceInfo: { osVersion: running, deviceType: type } },
  });
  return name;
}

describe('artifacts', () => {
  it('serves Range requests with an ETag, and refuses a corrupted upload', async () => {
    const image = randomBytes(10_000);
    const { sha256 } = await uploadImage(image);
    expect(sha256).toBe(createHash('sha256').update(image).digest('hex'));
    const whole = await fetch(`${server.url}/v1/artifacts/${sha256}`, { headers: auth });
    expect(whole.headers.get('etag')).toBe(`"${sha256}"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(image)).toBe(true);
    const part = await fetch(`${server.url}/v1/artifacts/${sha256}`, {
      headers: { ...auth, range: 'bytes=9000-', 'if-range': `"${sha256}"` },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 9000-9999/10000`);
    expect(Buffer.from(await part.arrayBuffer()).equals(image.subarray(9000))).toBe(true);
    const stale = await fetch(`${server.url}/v1/artifacts/${sha256}`, {
      headers: { ...auth, range: 'bytes=9000-', 'if-range': '"other"' },
    });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    const beyond = await fetch(`${server.url}/v1/artifacts/${sha256}`, { headers: { ...auth, range: 'bytes=20000-' } });
    expect(beyond.status).toBe(416);
    const bad = await fetch(`${server.url}/v1/artifacts`, {
      method: 'PUT',
      headers: { ...auth, 'x-content-sha256': '0'.repeat(64) },
      body: image,
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${server.url}/v1/artifacts/${sha256}`)).status).toBe(401);
  });

  it('refuses an OS version whose artifact was not uploaded or whose name does not fit', async () => {
    const sha256 = 'a'.repeat(64);
    const body = {
      name: 'osVersions/sim-9.0.0',
      version: '9.0.0',
      deviceType: 'deviceTypes/sim',
      artifact: { sha256, size: 10 },
      signature: sign(null, Buffer.from(sha256, 'hex'), privateKey).toString('base64'),
    };
    await expect(server.admin.create('', 'osVersions', body)).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    await expect(server.admin.create('', 'osVersions', { ...body, version: 'nine' })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
  });
});

describe('writing spec.osVersion', () => {
  beforeAll(async () => {
    await publish('1.1.0');
    await publish('2.0.0', '1.1.0');
  });

  it('a published version is accepted and OSReady becomes False/Pending', async () => {
    const name = reportedDevice('up-1', '1.0.0');
    const device = await server.admin.update<Device>(
      { name, spec: { osVersion: '1.1.0' } },
      { updateMask: 'spec.osVersion' },
    );
    expect(device.spec?.osVersion).toBe('1.1.0');
    expect(device.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'OSReady', status: 'False', reason: 'Pending' }),
    );
  });

  it('a version not published for the device type is FAILED_PRECONDITION and the record is unchanged', async () => {
    const name = reportedDevice('up-2', '1.0.0', 'other-type');
    const before = await server.admin.get(name);
    await expect(
      server.admin.update({ name, spec: { osVersion: '1.1.0' } }, { updateMask: 'spec.osVersion' }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringContaining('not published') });
    await expect(
      server.admin.update({ name, spec: { osVersion: '7.7.7' } }, { updateMask: 'spec.osVersion' }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    expect(await server.admin.get(name)).toEqual(before);
  });

  it('a minimum previous version the device does not meet is FAILED_PRECONDITION', async () => {
    const name = reportedDevice('up-3', '1.0.0');
    await expect(
      server.admin.update({ name, spec: { osVersion: '2.0.0' } }, { updateMask: 'spec.osVersion' }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringContaining('at least 1.1.0') });
    const ok = reportedDevice('up-4', '1.1.0');
    await server.admin.update({ name: ok, spec: { osVersion: '2.0.0' } }, { updateMask: 'spec.osVersion' });
  });

  it('the running version is always accepted, and devices without OS management refuse any other', async () => {
    const name = reportedDevice('up-5', '1.0.0');
    await server.admin.update({ name, spec: { osVersion: '1.0.0' } }, { updateMask: 'spec.osVersion' });
    const own = `projects/os/regions/eu/devices/own-linux`;
    server.engine.resource('devices').put({
      name: own,
      status: { deviceInfo: { osVersion: '1.0.0', deviceType: 'sim', managedFeatures: { os: false } } },
    });
    await expect(
      server.admin.update({ name: own, spec: { osVersion: '1.1.0' } }, { updateMask: 'spec.osVersion' }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringContaining('OS management') });
  });
});

describe('the OSReady condition the control plane sets follows every write of spec.osVersion', () => {
  beforeAll(async () => {
    await publish('1.5.0');
  });

  /** A device that reported `running` with these conditions (and is offline now), asking for `desired`. */
  function deviceWith(id: string, running: string, desired: string, conditions: Doc[]): string {
    const name = `projects/os/regions/eu/devices/${id}`;
    const devices = server.engine.resource('devices');
    devices.put({ name });
    // written as the system after its creation, so that no rule of a spec.osVersion write sets OSReady
    devices.patch(name, (d) => ({
      ...d,
      spec: { osVersion: desired },
      status: {
        connectionStatus: 'DISCONNECTED',
        deviceInfo: { osVersion: running, deviceType: 'sim' },
        conditions: conditions.map((c) => ({ lastTransitionTime: '2025-01-01T00:00:00Z', ...c })),
      },
    }));
    return name;
  }
  const osReadyOf = (device: Device) => device.status?.conditions?.find((c) => c.type === 'OSReady');
  const write = (name: string, osVersion: string) =>
    server.admin.update<Device>({ name, spec: { osVersion } }, { updateMask: 'spec.osVersion' });

  it('writing the running version back while offline and Pending is Converged on it, in the response and stored', async () => {
    const name = reportedDevice('back-1', '1.0.0');
    await server.engine.resource('devices').patch(name, (d) => ({
      ...d,
      status: { ...(d['status'] as Doc), connectionStatus: 'DISCONNECTED' },
    }));
    expect(osReadyOf(await write(name, '1.5.0'))).toMatchObject({ status: 'False', reason: 'Pending' });
    const back = await write(name, '1.0.0');
    expect(osReadyOf(back)).toMatchObject({ status: 'True', reason: 'Converged' });
    expect(osReadyOf(back)?.message).not.toContain('1.5.0');
    expect(osReadyOf(await server.admin.get<Device>(name))).toEqual(osReadyOf(back));
  });

  it('a write after RolledBack replaces RolledBack: Converged for the running version, Pending for another', async () => {
    const rolledBack = {
      type: 'OSReady',
      status: 'False',
      reason: 'RolledBack',
      message: '1.5.0 did not boot or was not committed in slot B; running 1.0.0',
    };
    const name = deviceWith('back-2', '1.0.0', '1.5.0', [rolledBack]);
    const back = await write(name, '1.0.0');
    expect(osReadyOf(back)).toMatchObject({
      status: 'True',
      reason: 'Converged',
      message: expect.stringContaining('1.0.0'),
    });
    const other = deviceWith('back-3', '1.0.0', '1.5.0', [rolledBack]);
    expect(osReadyOf(await write(other, '1.1.0'))).toMatchObject({
      status: 'False',
      reason: 'Pending',
      message: expect.stringContaining('1.1.0'),
    });
  });

  it('clearing spec.osVersion says that no version is requested; a write during a trial boot waits for the device', async () => {
    const pending = {
      type: 'OSReady',
      status: 'False',
      reason: 'Pending',
      message: 'waiting for the device to install 1.5.0',
    };
    const name = deviceWith('back-4', '1.0.0', '1.5.0', [pending]);
    const cleared = await server.admin.update<Device>({ name, spec: {} }, { updateMask: 'spec.osVersion' });
    expect(cleared.spec?.osVersion).toBeUndefined();
    expect(osReadyOf(cleared)).toMatchObject({
      status: 'True',
      reason: 'Converged',
      message: expect.stringContaining('no OS version is requested'),
    });
    // the device is booted into 1.5.0 for a trial: it still has to go back, so the write is not Converged yet
    const verifying = {
      type: 'OSReady',
      status: 'False',
      reason: 'Verifying',
      message: 'booted 1.5.0 in slot B for a trial',
    };
    const trial = deviceWith('back-5', '1.0.0', '1.5.0', [verifying]);
    expect(osReadyOf(await write(trial, '1.0.0'))).toMatchObject({
      status: 'False',
      reason: 'Pending',
      message: 'waiting for the device to return to 1.0.0',
    });
  });

  it('a device without OS management keeps Unsupported when its running version is written', async () => {
    const unsupported = {
      type: 'OSReady',
      status: 'True',
      reason: 'Unsupported',
      message: 'OS management is disabled',
    };
    const name = `projects/os/regions/eu/devices/back-6`;
    server.engine.resource('devices').put({
      name,
      status: {
        deviceInfo: { osVersion: '1.0.0', deviceType: 'sim', managedFeatures: { os: false } },
        conditions: [{ ...unsupported, lastTransitionTime: '2025-01-01T00:00:00Z' }],
      },
    });
    expect(osReadyOf(await write(name, '1.0.0'))).toMatchObject(unsupported);
  });

  it('Pending names a health check that already fails: the trial boot would not commit while it does', async () => {
    const failing = {
      type: 'Healthy/web',
      status: 'False',
      reason: 'Failing',
      message: 'GET http://127.0.0.1:8000/health: connection refused',
    };
    const name = deviceWith('back-7', '1.0.0', '1.0.0', [failing]);
    const written = osReadyOf(await write(name, '1.5.0'));
    expect(written).toMatchObject({ status: 'False', reason: 'Pending' });
    expect(written?.message).toBe(
      'waiting for the device to install 1.5.0; health check web (GET http://127.0.0.1:8000/health: ' +
        'connection refused) already fails: a trial boot of 1.5.0 does not commit while a health check fails',
    );
  });
});
