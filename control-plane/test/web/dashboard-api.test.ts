/**
 * The dashboard's DOM-free API module (`src/web/assets/api/`) against a real control plane: the calls the
 * screens make, with the real fetch of Node in place of the browser's, and the errors as the user sees them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device, HealthCheck } from '@outpost/shared';
import { DashboardClient, defineHealthCheck, removeHealthCheck } from '../../src/web/assets/api/client.js';
import { DashboardApiError, parseApiError } from '../../src/web/assets/api/errors.js';
import { healthCheckFromForm } from '../../src/web/assets/api/health-check-form.js';
import type { HealthCheckFields } from '../../src/web/assets/api/health-check-form.js';
import { summarizeDevice, versionChoices } from '../../src/web/assets/api/device-view.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { publishSimVersion } from './os-catalog-fixture.js';

const region = 'projects/dash/regions/eu';
let server: TestServer;
let client: DashboardClient;

beforeAll(async () => {
  server = await startTestServer();
  client = new DashboardClient({ apiKey: TEST_ADMIN_KEY, fetch, server: server.url });
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
  for (const version of ['1.1.0', '1.10.0', '1.2.0']) await publishSimVersion(server, version);
});
afterAll(async () => server.dispose());

/** A device that has reported running 1.0.0 on deviceTypes/sim (what its agent's status report writes). */
function reportedDevice(id: string): string {
  const name = `${region}/devices/${id}`;
  server.engine.resource('devices').put({
    name,
    metadata: { labels: { role: 'gateway' } },
    status: { connectionStatus: 'DISCONNECTED', deviceInfo: { osVersion: '1.0.0', deviceType: 'sim' } },
  });
  return name;
}

/** The check the form's fields describe (the form refuses nothing here). */
function checkOf(device: string, fields: HealthCheckFields): Record<string, unknown> {
  const built = healthCheckFromForm(device, fields);
  if ('error' in built) throw new Error(built.error);
  return built.check;
}

async function refusal(promise: Promise<unknown>): Promise<DashboardApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DashboardApiError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

describe('calls and errors', () => {
  it('sends the API key as a bearer token; a wrong key is UNAUTHENTICATED with the server message', async () => {
    const stranger = new DashboardClient({ apiKey: 'opk_nobody_0123456789', fetch, server: server.url });
    const err = await refusal(stranger.listDevices(`${region.split('/regions')[0]}/regions/-`));
    expect(err).toMatchObject({ status: 'UNAUTHENTICATED', code: 401, message: 'invalid or revoked API key' });
    expect(err.describe()).toBe('UNAUTHENTICATED (401): invalid or revoked API key');
  });

  it('lists devices of a parent with a "-" region and follows the page token', async () => {
    for (const id of ['list-a', 'list-b', 'list-c']) reportedDevice(id);
    const first = await client.list('projects/dash/regions/-', 'devices', { pageSize: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const rest = await client.list('projects/dash/regions/-', 'devices', {
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect(rest.items.length).toBeGreaterThan(0);
    const page = await client.listDevices('projects/-/regions/-');
    const summary = summarizeDevice(page.items.find((d) => d.name === `${region}/devices/list-a`) ?? { name: '' });
    expect(summary).toMatchObject({ runningOsVersion: '1.0.0', connection: 'Offline', id: 'list-a' });
  });

  it('a missing device, a bad filter and an unreachable server come back as their statuses', async () => {
    expect(await refusal(client.get(`${region}/devices/nope`))).toMatchObject({ status: 'NOT_FOUND', code: 404 });
    const bad = await refusal(client.list(region, 'devices', { filter: 'spec.nope = "x"' }));
    expect(bad).toMatchObject({ status: 'INVALID_ARGUMENT', code: 400 });
    expect(bad.message).toContain('unknown field');
    const gone = new DashboardClient({ apiKey: 'k', fetch, server: 'http://127.0.0.1:1' });
    expect(await refusal(gone.get(`${region}/devices/x`))).toMatchObject({ status: 'UNAVAILABLE', code: 0 });
    // an answer that is not the API's error body still reads as a status and a message
    expect(parseApiError(502, '<html>Bad gateway</html>')).toMatchObject({
      status: 'INTERNAL',
      code: 502,
      message: 'HTTP 502: <html>Bad gateway</html>',
    });
  });
});

describe('Edit detail: the OS version', () => {
  it('offers the catalog of the device type, newest first', async () => {
    const versions = await client.listOsVersions('deviceTypes/sim');
    expect(versionChoices(versions).map((c) => c.version)).toEqual(['1.10.0', '1.2.0', '1.1.0']);
    expect(await client.listOsVersions('deviceTypes/other')).toEqual([]);
  });

  it('a version not in the catalog is refused with FAILED_PRECONDITION and the device is unchanged', async () => {
    const name = reportedDevice('os-refused');
    const before = await server.admin.get(name);
    const err = await refusal(client.setOsVersion(name, '9.9.9'));
    expect(err).toMatchObject({ status: 'FAILED_PRECONDITION', code: 400 });
    expect(err.message).toContain('not published');
    expect(await server.admin.get(name)).toEqual(before);
  });

  it('a catalog version is saved in spec.osVersion alone, and the device goes Pending', async () => {
    const name = reportedDevice('os-saved');
    await server.admin.update(
      { name, spec: { netplanYamlConfig: 'network: {version: 2}' } },
      { updateMask: 'spec.netplanYamlConfig' },
    );
    const updated = await client.setOsVersion(name, '1.2.0');
    const device = await server.admin.get<Device>(name);
    expect(device.spec?.osVersion).toBe('1.2.0');
    expect(device.spec?.netplanYamlConfig).toBe('network: {version: 2}');
    expect(summarizeDevice(updated)).toMatchObject({ wantedOsVersion: '1.2.0', runningOsVersion: '1.0.0' });
    expect(device.status?.conditions).toContainEqual(expect.objectContaining({ type: 'OSReady', reason: 'Pending' }));
  });
});

describe('health checks', () => {
  it('defines a check for this device (named in spec.healthChecks), lists it, and deletes it from both', async () => {
    const device = reportedDevice('hc-own');
    const built = checkOf(device, {
      id: 'disk',
      type: 'COMMAND',
      command: 'test -w /outpost/data',
      intervalSeconds: '30',
      appliesTo: 'device',
    });
    await defineHealthCheck(client, device, built, true);
    const stored = await server.admin.get<HealthCheck>(`${region}/healthChecks/disk`);
    expect(stored.spec).toMatchObject({ type: 'COMMAND', command: { argv: ['test', '-w', '/outpost/data'] } });
    expect(stored.spec.selector).toBeUndefined();
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toEqual([`${region}/healthChecks/disk`]);
    expect((await client.listHealthChecks(region)).map((c) => c.name)).toContain(`${region}/healthChecks/disk`);

    await removeHealthCheck(client, device, `${region}/healthChecks/disk`);
    expect((await client.listHealthChecks(region)).map((c) => c.name)).not.toContain(`${region}/healthChecks/disk`);
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toEqual([]);
  });

  it('defines a check for labelled devices without touching the device, and shows the server refusals', async () => {
    const device = reportedDevice('hc-labels');
    const built = checkOf(device, {
      id: 'web',
      type: 'HTTP',
      url: 'http://127.0.0.1:8000/health',
      appliesTo: 'labels',
      labels: 'role=gateway',
    });
    await defineHealthCheck(client, device, built, false);
    const stored = await server.admin.get<HealthCheck>(`${region}/healthChecks/web`);
    expect(stored.spec.selector).toEqual({ matchLabels: { role: 'gateway' } });
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toBeUndefined();

    const again = await refusal(defineHealthCheck(client, device, built, false));
    expect(again).toMatchObject({ status: 'ALREADY_EXISTS', code: 409 });
    const tooLong = checkOf(device, {
      id: 'slow',
      type: 'TCP',
      host: '127.0.0.1',
      port: '22',
      intervalSeconds: '5',
      timeoutSeconds: '10',
      appliesTo: 'all',
    });
    const refused = await refusal(defineHealthCheck(client, device, tooLong, false));
    expect(refused).toMatchObject({ status: 'INVALID_ARGUMENT' });
    expect(refused.message).toContain('intervalSeconds');
    await removeHealthCheck(client, device, `${region}/healthChecks/web`);
    expect(await refusal(client.deleteHealthCheck(`${region}/healthChecks/web`))).toMatchObject({
      status: 'NOT_FOUND',
    });
  });
});

describe('remote operations of an offline device', () => {
  it('Reboot, Shutdown and Restart are UNAVAILABLE with the server message', async (context) => {
    const device = reportedDevice(perAttempt(context, 'asleep'));
    for (const action of ['reboot', 'shutdown'] as const) {
      const err = await refusal(client.power(device, action));
      expect(err).toMatchObject({ status: 'UNAVAILABLE', code: 503 });
      expect(err.message).toContain('offline');
    }
    const pod = perAttempt(context, `${region}/pods/shop`);
    await server.admin.create(region, 'pods', {
      name: pod,
      spec: { node: device, services: [{ name: 'api', command: ['sleep', '600'] }] },
    });
    expect((await client.listPods(device)).map((p) => p.name)).toEqual([pod]);
    expect(await client.listPods(reportedDevice('no-pods'))).toEqual([]);
    expect(await refusal(client.restartPod(pod))).toMatchObject({ status: 'UNAVAILABLE', code: 503 });
  });
});
