/**
 * Update safety (issue 15): no rule of an OS upgrade can be bypassed by timing, and a rollback says why. A real
 * control plane and real droplet processes on the simulated (file) boot backend, every step seen through a watch.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import type { Snapshot } from './helpers/device-timeline.js';
import { SimulatedOtaWorld } from './helpers/simulated-ota.js';

const parent = 'projects/safety/regions/eu';
let world: SimulatedOtaWorld;
let server: TestServer;
let work: string;

beforeAll(async () => {
  world = await SimulatedOtaWorld.start('safety');
  server = world.server;
  work = world.work;
  await world.publish('1.2.0');
  await world.publish('2.0.0', { minimumPreviousVersion: '1.2.0' });
});
afterEach(async () => world.stopDevices());
afterAll(async () => world.dispose());

const provisionedDevice = (id: string) => world.device(id);

const setVersion = (name: string, osVersion: string) =>
  server.admin.update<Device>({ name, spec: { osVersion } }, { updateMask: 'spec.osVersion' });
const converged = (version: string) => (s: Snapshot) =>
  s.connection === 'CONNECTED' && s.running === version && s.osReady?.reason === 'Converged';

describe('a device provisioned but not yet reported', () => {
  it('is held to the catalog: an unpublished version and one whose minimum it does not meet are refused', async () => {
    const d = await provisionedDevice('not-reported');
    const before = await server.admin.get<Device>(d.name);
    expect(before.status?.deviceInfo).toMatchObject({ deviceType: 'simulated', osVersion: '1.0.0' });
    await expect(setVersion(d.name, '2.0.0')).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringContaining('needs the device to run at least 1.2.0; it runs 1.0.0'),
    });
    await expect(setVersion(d.name, '9.9.9')).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringContaining('not published'),
    });
    expect(await server.admin.get(d.name)).toEqual(before);
    // its agent then reports the same facts and converges on what it runs
    d.start();
    await d.timeline.until(converged('1.0.0'));
  }, 60_000);

  it('whose spec.osVersion was written before the server knew its type: its agent refuses the image, downloading nothing', async () => {
    const name = `${parent}/devices/early-spec`;
    // created with a spec while nothing is known of it: the control plane cannot check, the agent must
    const created = await server.admin.create<Device>(parent, 'devices', { name, spec: { osVersion: '2.0.0' } });
    expect(created.status?.conditions).toContainEqual(expect.objectContaining({ type: 'OSReady', reason: 'Pending' }));
    const d = await provisionedDevice('early-spec');
    const downloads = server.artifactDownloads();
    d.start();
    const refused = await d.timeline.until(
      (s) => s.connection === 'CONNECTED' && s.osReady?.reason === 'Failed',
      60_000,
    );
    expect(refused.osReady).toEqual({
      status: 'False',
      reason: 'Failed',
      message:
        'refused 2.0.0: its minimumPreviousVersion is 1.2.0 and this device runs 1.0.0; upgrade through 1.2.0 first ' +
        '(nothing was downloaded)',
    });
    expect(refused.running).toBe('1.0.0');
    // it stays refused (no retry), and no byte of the image was asked for
    const after = d.timeline.mark();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(d.timeline.reasons(after).filter((r) => r !== 'Failed')).toEqual([]);
    expect(server.artifactDownloads()).toBe(downloads);
    expect(d.timeline.states.some((s) => s.osReady?.reason === 'Downloading')).toBe(false);
  }, 60_000);
});

describe('a health check that fails', () => {
  it('is named before the download, and a trial boot it keeps from committing rolls back naming it', async () => {
    const d = await provisionedDevice('failing-check');
    await server.admin.create(parent, 'healthChecks', {
      name: `${parent}/healthChecks/marker`,
      spec: {
        type: 'DEVICE_FILE',
        deviceFile: { path: join(work, 'no-such-marker') },
        intervalSeconds: 0.5,
        failureThreshold: 1,
      },
    });
    await server.admin.update(
      { name: d.name, spec: { healthChecks: ['marker'] } },
      { updateMask: 'spec.healthChecks' },
    );
    d.start(['--commit-timeout', '4']);
    const failing = (s: Snapshot): boolean =>
      s.device.status?.conditions?.some((c) => c.type === 'Healthy/marker' && c.status === 'False') ?? false;
    await d.timeline.until((s) => converged('1.0.0')(s) && failing(s));
    await d.timeline.until((s) => s.device.status?.osUpdate?.failingHealthChecks?.includes('marker') ?? false);

    const mark = d.timeline.mark();
    const written = await setVersion(d.name, '1.2.0');
    const pending = written.status?.conditions?.find((c) => c.type === 'OSReady');
    expect(pending).toMatchObject({ status: 'False', reason: 'Pending' });
    expect(pending?.message).toMatch(
      /^waiting for the device to install 1\.2\.0; health check marker \(.+\) already fails/,
    );
    const rolledBack = await d.timeline.until(
      (s) => s.connection === 'CONNECTED' && s.osReady?.reason === 'RolledBack',
      90_000,
      mark,
    );
    expect(rolledBack.running).toBe('1.0.0');
    expect(rolledBack.osReady?.message).toMatch(
      /^1\.2\.0 was rolled back: slot B \(1\.2\.0\) was not committed within 4 s \(waiting for the health checks to pass: marker \(.+\)\); running 1\.0\.0/,
    );
    // status.osUpdate follows in the same or the next report
    const reported = await d.timeline.until((s) => s.device.status?.osUpdate?.rolledBack !== undefined, 10_000, mark);
    expect(reported.device.status?.osUpdate?.rolledBack).toMatchObject({
      version: '1.2.0',
      slot: 'B',
      failingHealthChecks: ['marker'],
    });
    expect(d.timeline.reasons(mark)).toContain('Verifying');
    // a small image downloads within one status write batch on a fast machine, so Downloading may never be stored;
    // every Downloading state that was stored says the check already fails
    for (const downloading of d.timeline.states.slice(mark).filter((s) => s.osReady?.reason === 'Downloading')) {
      expect(downloading.osReady?.message).toMatch(
        /^downloading 1\.2\.0: \d+%; health check marker \(.+\) already fails: a trial boot of 1\.2\.0 does not commit while a health check fails$/,
      );
    }
  }, 150_000);
});
