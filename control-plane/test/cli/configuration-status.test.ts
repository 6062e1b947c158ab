import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { runCli } from './harness.js';

// `outpost devices get` against a real control plane shows each configuration part the agent reports on one line.
const DEVICE = 'projects/pp/regions/eu/devices/gw-cfg';

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY };
  const devices = server.engine.resource('devices');
  devices.put({ name: DEVICE, spec: { netplanYamlConfig: 'network: {version: 2}' } });
  // as the gateway stores the agent's report
  devices.patch(DEVICE, (d) => ({
    ...d,
    status: {
      configuration: {
        network: {
          desiredGeneration: 4,
          appliedGeneration: 3,
          source: 'known-good',
          lastError: 'the link did not come back within 120 s',
          updateTime: '2026-11-25T10:00:00.000Z',
        },
        ssh: { desiredGeneration: 4, appliedGeneration: 4, source: 'desired', updateTime: '2026-11-25T09:00:00.000Z' },
        proxy: { desiredGeneration: 2, source: 'factory', updateTime: '2026-11-25T08:00:00.000Z' },
      },
    },
  }));
});
afterAll(() => server.dispose());

const outpost = (...argv: string[]) => runCli(argv, { env, register: registerDeviceCommands });

describe('outpost devices get shows the configuration status', () => {
  it('one line per part: source, applied of desired generation, the last error and when', async () => {
    const { stdout, code } = await outpost('devices', 'get', 'devices', DEVICE);
    expect(code).toBe(0);
    const lines = stdout.split('\n').map((line) => line.replace(/\s+/g, ' '));
    expect(lines).toContain(
      'status.configuration.network: known-good, applied 3 of 4: the link did not come back within 120 s (2026-11-25T10:00:00.000Z)',
    );
    expect(lines).toContain('status.configuration.ssh: desired, applied 4 of 4 (2026-11-25T09:00:00.000Z)');
    expect(lines).toContain('status.configuration.proxy: factory, applied none of 2 (2026-11-25T08:00:00.000Z)');
  });

  it('in the DETAIL view too, and as the API sends it in json', async () => {
    const detail = await outpost('devices', 'get', 'devices', DEVICE, '--view', 'DETAIL');
    expect(detail.stdout).toMatch(/status\.configuration\.ssh:\s+desired, applied 4 of 4/);
    const json = await outpost('devices', 'get', 'devices', DEVICE, '-o', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: { configuration: { network: { source: 'known-good', appliedGeneration: 3, desiredGeneration: 4 } } },
    });
  });
});
