/** scripts/sim-fleet.ts as a real child process against a real control plane, and its fleet plan. */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { parseShare, planFleet } from '../../scripts/sim-fleet/fleet-plan.js';
import { REPO } from './helpers/processes.js';

const parent = 'projects/simcli/regions/eu';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { heartbeatSeconds: 1 });
});
afterAll(async () => {
  await server.dispose();
});

function simFleet(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', `${REPO}scripts/sim-fleet.ts`, ...args], {
    cwd: REPO,
    env: { ...process.env, OUTPOST_API_KEY: TEST_ADMIN_KEY, OUTPOST_SERVER: server.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

interface Listed {
  name: string;
  metadata?: { labels?: Record<string, string> };
  status?: { connectionStatus?: string; deviceInfo?: { osVersion?: string }; conditions?: Condition[] };
}

async function devices(): Promise<Listed[]> {
  return (await server.admin.list<Listed>(parent, 'devices', { pageSize: 1000 })).devices ?? [];
}

async function until(test: (all: Listed[]) => boolean, what: string, timeoutMs = 30_000): Promise<Listed[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await devices();
    if (test(all)) return all;
    if (Date.now() > deadline) throw new Error(`${what}: never; last seen ${JSON.stringify(all).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const osReady = (d: Listed): string | undefined => d.status?.conditions?.find((c) => c.type === 'OSReady')?.reason;

describe('scripts/sim-fleet.ts', () => {
  it('runs the devices it provisions, with the shares asked for, until Ctrl-C', async () => {
    const run = simFleet([
      ...['--parent', parent, '--devices', '20', '--publish', '1.1.0'],
      ...['--fail-boot', '2', '--offline', '10%', '--sites', '3'],
      ...['--download-ms', '100', '--reboot-ms', '100'],
    ]);
    try {
      const all = await until(
        (list) => list.filter((d) => d.status?.connectionStatus === 'CONNECTED').length === 18,
        '18 devices connected',
      );
      expect(all).toHaveLength(20);
      expect(all.map((d) => d.name)).toContain(`${parent}/devices/sim-0019`);
      expect(new Set(all.map((d) => d.metadata?.labels?.['site']))).toEqual(new Set(['site-1', 'site-2', 'site-3']));

      for (const d of all) {
        await server.admin.update({ name: d.name, spec: { osVersion: '1.1.0' } }, { updateMask: 'spec.osVersion' });
      }
      const done = await until(
        (list) =>
          list.filter((d) => d.status?.deviceInfo?.osVersion === '1.1.0' && osReady(d) === 'Converged').length === 16 &&
          list.filter((d) => osReady(d) === 'RolledBack').length === 2,
        '16 upgraded and 2 rolled back',
      );
      expect(done.filter((d) => d.status?.connectionStatus !== 'CONNECTED')).toHaveLength(2);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain('sim-fleet: 2 fail to boot a new version');
    expect(run.stderr()).toContain('sim-fleet: 2 offline');
    expect(run.stderr()).toMatch(/stopped: (?=.*16 on 1\.1\.0)(?=.*4 on 1\.0\.0)/);
  }, 90_000);

  it('--help prints the usage; a bad flag exits 2 naming it', async () => {
    const help = simFleet(['--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain('--fail-boot <share>');
    const bad = simFleet(['--parent', parent, '--devices', '10', '--offline', '11']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain(
      '--offline must be a count of devices up to 10 or a percentage such as 5%, not "11"',
    );
    expect(await devices()).toHaveLength(20); // nothing was created
  }, 60_000);
});

describe('the fleet plan', () => {
  it('shares are counts or percentages of the fleet', () => {
    expect(parseShare('5%', 1000, '--x')).toBe(50);
    expect(parseShare('12', 1000, '--x')).toBe(12);
    expect(parseShare('0.5%', 1000, '--x')).toBe(5);
    for (const bad of ['', '-1', '1001', '101%', 'x', '1.5']) expect(() => parseShare(bad, 1000, '--x')).toThrow('--x');
  });

  it('gives each device at most one misbehaviour, the same ones for the same seed', () => {
    const shape = { parent, count: 100, prefix: 'd', failBoot: 10, failHealth: 5, offline: 20, sites: 4, seed: 7 };
    const plan = planFleet(shape);
    expect(plan.filter((d) => d.failBoot)).toHaveLength(10);
    expect(plan.filter((d) => d.failHealthAfterUpgrade)).toHaveLength(5);
    expect(plan.filter((d) => d.offline)).toHaveLength(20);
    expect(plan.filter((d) => [d.failBoot, d.failHealthAfterUpgrade, d.offline].filter(Boolean).length > 1)).toEqual(
      [],
    );
    expect(planFleet(shape)).toEqual(plan);
    expect(planFleet({ ...shape, seed: 8 })).not.toEqual(plan);
    expect(plan[5]).toMatchObject({ name: `${parent}/devices/d-0005`, labels: { site: 'site-2' } });
    expect(() => planFleet({ ...shape, offline: 90 })).toThrow('105 misbehaving devices asked for');
  });
});
