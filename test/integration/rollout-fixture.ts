/**
 * What the rollout integration tests share: a real control plane (heartbeat 1 s), the simulated fleet of
 * scripts/sim-fleet with fast downloads and reboots, and the built `outpost` CLI run as a child process, its
 * `-o json` output read as the NDJSON events of the rollout.
 */
import type { Device } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { startSimFleet } from '../../scripts/sim-fleet/index.js';
import type { SimDeviceSpec, SimFleet } from '../../scripts/sim-fleet/index.js';
import { provisionSimDevices, publishSimulatedVersion } from '../../scripts/sim-fleet/server-setup.js';
import { spawn } from 'node:child_process';
import { OUTPOST_CLI, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';

const CLI_TIMEOUT_MS = 90_000;

export interface FleetDevice {
  id: string;
  labels?: Record<string, string>;
  failBoot?: boolean;
  failHealthAfterUpgrade?: boolean;
  offline?: boolean;
}

export interface RolloutBench {
  server: TestServer;
  fleet: SimFleet;
  parent: string;
  name(id: string): string;
  cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** the CLI as a running child process */
  startCli(args: readonly string[]): RunningProcess;
  device(id: string): Promise<Device>;
  dispose(): Promise<void>;
}

/** `outpost devices rollout --parent <the bench's parent> --version <version>` followed by `options` */
export const rolloutCommand = (bench: RolloutBench, version: string, ...options: string[]): string[] => [
  'devices',
  'rollout',
  '--parent',
  bench.parent,
  '--version',
  version,
  ...options,
];

export async function startRolloutBench(project: string, devices: readonly FleetDevice[]): Promise<RolloutBench> {
  const server = await startTestServer({}, { heartbeatSeconds: 1 });
  const parent = `projects/${project}/regions/eu`;
  const name = (id: string): string => `${parent}/devices/${id}`;
  const sim = { client: server.admin, serverUrl: server.url, apiKey: TEST_ADMIN_KEY };
  await publishSimulatedVersion(sim, 'simulated', '1.1.0');
  const credentials = await provisionSimDevices(
    sim,
    devices.map((d) => ({ name: name(d.id), labels: d.labels ?? {} })),
  );
  const specs: SimDeviceSpec[] = devices.map((d, i) => ({
    name: name(d.id),
    credential: credentials[i]!,
    deviceType: 'simulated',
    factoryVersion: '1.0.0',
    ...(d.failBoot ? { failBoot: true } : {}),
    ...(d.failHealthAfterUpgrade ? { failHealthAfterUpgrade: true } : {}),
    ...(d.offline ? { offline: true } : {}),
  }));
  const fleet = await startSimFleet({ serverUrl: server.url, devices: specs, downloadMs: 300, rebootMs: 300 });
  const env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY };
  const online = devices.filter((d) => !d.offline).map((d) => name(d.id));
  await until(async () => {
    const page = await server.admin.list(parent, 'devices', {
      filter: 'status.connectionStatus = "Online" AND status.deviceInfo.osVersion = "1.0.0"',
      view: 'NAME',
      pageSize: 1,
      includePagingInfo: true,
    });
    return page.totalResultsCount === online.length;
  }, 'every online simulated device to connect and report 1.0.0');
  return {
    server,
    fleet,
    parent,
    name,
    cli: (args) => runBoundedCli(args, env),
    startCli: (args) => startProcess(OUTPOST_CLI, args, env),
    device: (id) => server.admin.get<Device>(name(id)),
    dispose: async () => {
      await fleet.stop();
      await server.dispose();
    },
  };
}

/** The NDJSON events a `rollout -o json` printed. */
export function eventsOf(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `promoted canary`, `written early`, ...: the order of the events that move a rollout, as words. */
export function milestones(events: readonly Record<string, unknown>[]): string[] {
  return events
    .filter((e) =>
      ['waveSkipped', 'waveStarted', 'written', 'promoted', 'halted', 'completed'].includes(String(e['event'])),
    )
    .map((e) => `${String(e['event'])}${e['wave'] === undefined ? '' : ` ${String(e['wave'])}`}`);
}

export async function until(test: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The built CLI to completion, killed after CLI_TIMEOUT_MS: a rollout that hangs fails its test with its output. */
async function runBoundedCli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [OUTPOST_CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  if (signal === 'SIGKILL') {
    throw new Error(`outpost ${args.join(' ')} did not end in time; it printed:\n${stdout}\n${stderr}`);
  }
  return { code, stdout, stderr };
}
