/**
 * The simulated fleet (scripts/sim-fleet) against a real control plane: its devices run the real agent link and OS
 * updater over the in-memory boot backend, and the server's records show each knob's outcome.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Condition } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { startSimFleet } from '../../scripts/sim-fleet/index.js';
import type { SimDeviceSpec, SimFleet } from '../../scripts/sim-fleet/index.js';
import { provisionSimDevice, publishSimulatedVersion } from '../../scripts/sim-fleet/server-setup.js';
import type { SimServer } from '../../scripts/sim-fleet/server-setup.js';

const parent = 'projects/sim/regions/eu';
let server: TestServer;
let sim: SimServer;
let fleet: SimFleet | undefined;
const lines: string[] = [];

interface DeviceView {
  connected: boolean;
  osVersion: string | undefined;
  osReady: Condition | undefined;
  health: Condition | undefined;
}

async function view(name: string): Promise<DeviceView> {
  const device = await server.admin.get<{
    status?: { connectionStatus?: string; deviceInfo?: { osVersion?: string }; conditions?: Condition[] };
  }>(name);
  const conditions = device.status?.conditions ?? [];
  return {
    connected: device.status?.connectionStatus === 'CONNECTED',
    osVersion: device.status?.deviceInfo?.osVersion,
    osReady: conditions.find((c) => c.type === 'OSReady'),
    health: conditions.find((c) => c.type === 'Healthy/sim'),
  };
}

async function until(name: string, test: (v: DeviceView) => boolean, timeoutMs = 20_000): Promise<DeviceView> {
  const deadline = Date.now() + timeoutMs;
  let last = await view(name);
  while (!test(last)) {
    if (Date.now() > deadline) throw new Error(`${name} never got there; last seen ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await view(name);
  }
  return last;
}

const setVersion = (name: string, osVersion: string) =>
  server.admin.update({ name, spec: { osVersion } }, { updateMask: 'spec.osVersion' });

async function specs(ids: string[], extra: Partial<SimDeviceSpec>[] = []): Promise<SimDeviceSpec[]> {
  return Promise.all(
    ids.map(async (id, i) => {
      const name = `${parent}/devices/${id}`;
      return {
        name,
        credential: await provisionSimDevice(sim, name),
        deviceType: 'simulated',
        factoryVersion: '1.0.0',
        ...extra[i],
      };
    }),
  );
}

// per attempt: a CI retry of the test gets a fresh server and fleet, not the first attempt's devices
beforeEach(async () => {
  lines.length = 0;
  server = await startTestServer({}, { heartbeatSeconds: 1 });
  sim = { client: server.admin, serverUrl: server.url, apiKey: TEST_ADMIN_KEY };
  await publishSimulatedVersion(sim, 'simulated', '1.1.0');
  await publishSimulatedVersion(sim, 'simulated', '1.1.0'); // again: nothing changes
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
  await server.dispose();
});

describe('the simulated fleet', () => {
  it('upgrades through download and reboot, rolls back a boot failure, regresses health, and waits while offline', async () => {
    const devices = await specs(
      ['ok', 'bad-boot', 'bad-health', 'away'],
      [{}, { failBoot: true }, { failHealthAfterUpgrade: true }, { offline: true }],
    );
    const [ok, badBoot, badHealth, away] = devices.map((d) => d.name) as [string, string, string, string];
    fleet = await startSimFleet({
      serverUrl: server.url,
      devices,
      downloadMs: 300,
      rebootMs: 300,
      log: (line) => lines.push(line),
    });
    for (const name of [ok, badBoot, badHealth]) {
      const seen = await until(name, (v) => v.connected && v.osReady?.reason === 'Converged');
      expect(seen.osVersion).toBe('1.0.0');
      expect(seen.health).toMatchObject({ status: 'True', reason: 'Passing' });
    }
    expect((await view(away)).connected).toBe(false);

    const started = Date.now();
    for (const name of [ok, badBoot, badHealth, away]) await setVersion(name, '1.1.0');

    const upgraded = await until(ok, (v) => v.osVersion === '1.1.0' && v.osReady?.reason === 'Converged');
    expect(Date.now() - started).toBeGreaterThanOrEqual(600); // the download and the reboot took their time
    expect(upgraded.health?.status).toBe('True');
    expect(fleet.runningVersion(ok)).toBe('1.1.0');

    const rolledBack = await until(badBoot, (v) => v.osReady?.reason === 'RolledBack');
    expect(rolledBack).toMatchObject({ connected: true, osVersion: '1.0.0', osReady: { status: 'False' } });
    expect(fleet.runningVersion(badBoot)).toBe('1.0.0');

    await until(badHealth, (v) => v.osVersion === '1.1.0');
    const regressed = await until(badHealth, (v) => v.health?.status === 'False');
    expect(regressed.health).toMatchObject({ reason: 'Failing' });
    expect(regressed.osVersion).toBe('1.1.0');

    // offline at the time of the write: converges once it is back
    expect((await view(away)).osVersion).toBeUndefined();
    expect(fleet.runningVersion(away)).toBe('1.0.0');
    await fleet.setOnline(away, true);
    await until(away, (v) => v.connected && v.osVersion === '1.1.0' && v.osReady?.reason === 'Converged');

    await fleet.setOnline(ok, false);
    await until(ok, (v) => !v.connected);
    expect(fleet.runningVersion(ok)).toBe('1.1.0');
    expect(lines.filter((l) => l.startsWith('sim-fleet:'))).toEqual([]);
  }, 60_000);
});
