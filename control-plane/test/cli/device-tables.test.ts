import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { runCli } from './harness.js';

// `outpost devices ...` against a real control plane: spec 000's Online/Offline in filters and tables, the API's
// CONNECTED/DISCONNECTED in json, and a watch table that follows an upgrade by the values of its field mask.
const REGION = 'projects/pp/regions/eu';
const ONLINE = `${REGION}/devices/gw-on`;
const OFFLINE = `${REGION}/devices/gw-off`;

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY };
  seedDevices();
});
afterAll(() => server.dispose());

/** Both devices on 1.0.0, one of them online. */
function seedDevices(): void {
  const devices = server.engine.resource('devices');
  devices.put({ name: ONLINE, spec: { osVersion: '1.0.0' } });
  devices.put({ name: OFFLINE, spec: { osVersion: '1.0.0' } });
  // as the gateway writes it when the agent connects (a new device is DISCONNECTED)
  devices.patch(ONLINE, (d) => ({
    ...d,
    status: { connectionStatus: 'CONNECTED', deviceInfo: { osVersion: '1.0.0', deviceType: 'rpi4' } },
  }));
}

const outpost = (...argv: string[]) => runCli(argv, { env, register: registerDeviceCommands });
const ids = (stdout: string): string[] =>
  ((JSON.parse(stdout) as { devices?: Device[] }).devices ?? []).map((d) => d.name.split('/').pop() ?? '');

describe('devices in the command line', () => {
  it.each([
    ['status.connectionStatus = "Online"', ['gw-on']],
    ['status.connectionStatus = "Offline"', ['gw-off']],
    ['status.connectionStatus != "Online"', ['gw-off']],
    ['status.connectionStatus IN ("Online", "Offline")', ['gw-off', 'gw-on']],
    ['status.connectionStatus NOT IN ("Offline") AND spec.osVersion = "1.0.0"', ['gw-on']],
  ])('filters (in SQL) with spec 000 words: %s', async (filter, expected) => {
    const result = await outpost(
      'devices',
      'list',
      'devices',
      '--parent',
      'projects/pp/regions/-',
      '--filter',
      filter,
      '-o',
      'json',
    );
    expect(result.stderr).toBe('');
    expect(ids(result.stdout)).toEqual(expected);
  });

  it('shows Online and Offline in the list table, CONNECTED and DISCONNECTED in json', async () => {
    const table = await outpost('devices', 'list', 'devices', '--parent', REGION);
    expect(table.stdout).toBe(
      [
        `${'NAME'.padEnd(OFFLINE.length)}   STATUS    DESIRED   RUNNING   TYPE`,
        `${OFFLINE}   Offline   1.0.0`,
        `${ONLINE}    Online    1.0.0     1.0.0     rpi4`,
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await outpost('devices', 'list', 'devices', '--parent', REGION, '-o', 'json')).stdout) as {
      devices: Device[];
    };
    expect(json.devices.map((d) => d.status?.connectionStatus)).toEqual(['DISCONNECTED', 'CONNECTED']);
  });

  it('prints only the NAME column for --view NAME', async () => {
    expect((await outpost('devices', 'list', 'devices', '--parent', REGION, '--view', 'NAME')).stdout).toBe(
      ['NAME', OFFLINE, ONLINE, ''].join('\n'),
    );
  });

  it('gets a device with its name first and its connection status in the words of the spec', async () => {
    const lines = (await outpost('devices', 'get', 'devices', ONLINE)).stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^name: +${ONLINE}$`));
    expect(lines).toContainEqual(expect.stringMatching(/^status\.connectionStatus: +Online$/));
  });

  it('watches an upgrade in a table: each line carries the masked fields', async () => {
    seedDevices(); // a retry finds its first attempt's upgrade done: it starts from 1.0.0 again
    const stop = new AbortController();
    const fetchUntilStopped: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal });
    const devices = server.engine.resource('devices');
    const downloading = { type: 'OSReady', status: 'False', reason: 'Downloading', message: 'downloading 1.1.0: 40%' };
    const converged = { type: 'OSReady', status: 'True', reason: 'Converged' };
    // the upgrade, one step after the table shows what the step before did
    const steps: [string, () => void][] = [
      ['SYNCED', () => devices.patch(ONLINE, (d) => ({ ...d, spec: { osVersion: '1.1.0' } }))],
      [
        'spec.osVersion=1.1.0   status.deviceInfo.osVersion=1.0.0   status.conditions=<none>\n',
        () =>
          devices.patch(ONLINE, (d) => ({ ...d, status: { ...(d['status'] as object), conditions: [downloading] } })),
      ],
      [
        'OSReady False/Downloading: downloading 1.1.0: 40%',
        () =>
          devices.patch(ONLINE, (d) => ({
            ...d,
            status: { ...(d['status'] as object), deviceInfo: { osVersion: '1.1.0' }, conditions: [converged] },
          })),
      ],
      ['OSReady True/Converged', () => stop.abort()],
    ];
    let seen = 0;
    const result = await runCli(
      [
        'devices',
        'watch',
        'devices',
        '--parent',
        REGION,
        '--filter',
        'status.connectionStatus = "Online"',
        '--type',
        'stateless',
        '--field-mask',
        'spec.osVersion,status.deviceInfo.osVersion,status.conditions',
      ],
      {
        env,
        register: registerDeviceCommands,
        fetch: fetchUntilStopped,
        // each step waits for its text in what was printed after the step before it
        onStdout: (stdout) => {
          const next = steps[0];
          if (next && stdout.indexOf(next[0], seen) >= 0) {
            seen = stdout.length;
            steps.shift();
            next[1]();
          }
        },
      },
    );
    expect(steps).toEqual([]);
    expect(result.stdout).toBe(
      [
        `CURRENT   ${ONLINE}   spec.osVersion=1.0.0   status.deviceInfo.osVersion=1.0.0   status.conditions=<none>`,
        'SYNCED',
        `CURRENT   ${ONLINE}   spec.osVersion=1.1.0   status.deviceInfo.osVersion=1.0.0   status.conditions=<none>`,
        'SYNCED',
        `CURRENT   ${ONLINE}   spec.osVersion=1.1.0   status.deviceInfo.osVersion=1.0.0   status.conditions=OSReady False/Downloading: downloading 1.1.0: 40%`,
        'SYNCED',
        `CURRENT   ${ONLINE}   spec.osVersion=1.1.0   status.deviceInfo.osVersion=1.1.0   status.conditions=OSReady True/Converged`,
        'SYNCED',
        '',
      ].join('\n'),
    );
  });
});
