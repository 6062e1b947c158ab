import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { runCli } from './harness.js';

// `--parent -` alone, which the help offers as "every parent", against a real control plane: the API takes `-` per
// id only (projects/-/regions/-), so the CLI must spell it out for list and watch.
const DEVICES = ['projects/pa/regions/eu/devices/gw-1', 'projects/pb/regions/us/devices/gw-2'];

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY };
  for (const name of DEVICES) server.engine.resource('devices').put({ name, spec: {} });
});
afterAll(() => server.dispose());

describe('a bare "-" parent', () => {
  it('lists the devices of every project and region', async () => {
    const result = await runCli(['devices', 'list', 'devices', '--parent', '-', '-o', 'json'], {
      env,
      register: registerDeviceCommands,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { devices: Device[] }).devices.map((d) => d.name)).toEqual(DEVICES);
  });

  it('watches the devices of every project and region', async () => {
    const stop = new AbortController();
    const fetchUntilStopped: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal });
    const result = await runCli(['devices', 'watch', 'devices', '--parent', '-'], {
      env,
      register: registerDeviceCommands,
      fetch: fetchUntilStopped,
      onStdout: (stdout) => {
        if (stdout.includes('SYNCED')) stop.abort();
      },
    });
    expect(result.stderr).not.toContain('INVALID_ARGUMENT');
    expect(result.stdout.split('\n').filter((line) => line !== '')).toEqual([
      ...DEVICES.map((name) => expect.stringMatching(new RegExp(`^[A-Z]+ +${name}$`)) as unknown),
      'SYNCED',
    ]);
  });
});
