import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { runCli } from './harness.js';

/** Mistakes in a rollout's command line are usage errors (exit 2) that write nothing; so is a missing --yes without a terminal. */
let server: TestServer;
const parent = 'projects/cli-rollout/regions/eu';

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create(parent, 'devices', {
    name: `${parent}/devices/gw-1`,
    metadata: { labels: { 'wave:canary': '' } },
  });
});
afterAll(async () => server.dispose());

const outpost = (args: string[]) =>
  runCli(args, {
    env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    register: (program, ctxFactory) => registerDeviceCommands(program, ctxFactory),
  });

describe('outpost devices rollout', () => {
  it('refuses bad flags with exit 2, naming what is accepted', async () => {
    const base = ['devices', 'rollout', '--parent', parent, '--version', '1.1.0', '--yes'];
    const cases: [string[], RegExp][] = [
      [['--max-failures', 'ten'], /not a failure budget: write a number of devices \(3\) or a percentage \(10%\)/],
      [['--max-failures', '150%'], /at most 100%/],
      [['--soak', '5'], /"5" is not a duration/],
      [['--wave-timeout', 'soon'], /"soon" is not a duration/],
      [['--waves', 'canary,,main'], /wave name ""/],
    ];
    for (const [extra, message] of cases) {
      const result = await outpost([...base, ...extra]);
      expect(result.code, extra.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await server.admin.get<Device>(`${parent}/devices/gw-1`)).spec?.osVersion).toBeUndefined();
  });

  it('without --yes and without a terminal, prints the preflight and writes nothing', async () => {
    const result = await outpost(['devices', 'rollout', '--parent', parent, '--version', '1.1.0']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/Preflight of 1.1.0/);
    expect(result.stderr).toMatch(/no terminal to confirm on: pass --yes/);
    expect((await server.admin.get<Device>(`${parent}/devices/gw-1`)).spec?.osVersion).toBeUndefined();
  });

  it('label-waves refuses a bad --early or --canary', async () => {
    const base = ['devices', 'label-waves', '--parent', parent];
    expect((await outpost([...base, '--canary', 'two', '--early', '5%'])).stderr).toMatch(/not a number of devices/);
    expect((await outpost([...base, '--canary', '2', '--early', '120%'])).stderr).toMatch(/not a percentage/);
  });
});
