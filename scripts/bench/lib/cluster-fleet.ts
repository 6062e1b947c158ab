/**
 * The parts of the cluster benchmark (scripts/bench/cluster.ts) that stand up a fleet: devices and their
 * credentials seeded into the shared PostgreSQL through the real engine and devices service, control-plane
 * replicas as processes of the build, and fleet-simulator processes driven through their JSON lines.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CONTROL_PLANE_NODE_FLAGS } from '../../../control-plane/src/server/node-flags.js';
import type { SimulatorCommand, SimulatorEvent } from '../fleet-simulator.js';
import { REPO_ROOT } from './preflight.js';
import { cpuSecondsOf, freePort, statusBytesOf } from './process-stats.js';
import { sleep, withTimeout } from './time.js';

const SEED_BATCH = 1_000;
const SERVER_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'server', 'main.js');
const SIMULATOR = join(REPO_ROOT, 'scripts', 'bench', 'fleet-simulator.ts');

/** The credentials seedDevices stored, and the CPU it took: this process's, and its PostgreSQL backend's. */
export interface Seeded {
  secrets: string[];
  cpuSeconds: number;
  postgresCpuSeconds: number;
}

/**
 * Creates `n` devices under `parent` with a credential each in the shared store, `SEED_BATCH` per transaction
 * (the engine's bulk create: one look for the names, the inserts, the change log and the credentials go out
 * together). `progress` is told after each transaction of how many are stored.
 */
export async function seedDevices(
  database: string,
  parent: string,
  n: number,
  progress: (stored: number) => void = () => {},
): Promise<Seeded> {
  const { ResourceEngine } = await import('../../../control-plane/src/resources/resource-engine.js');
  const { PgStorage } = await import('../../../control-plane/src/resources/storage/postgres/pg-storage.js');
  const { createDeviceService } = await import('../../../control-plane/src/devices/device-service.js');
  const cpuAtStart = process.cpuUsage();
  const storage = new PgStorage(database);
  const backend = Number(storage.query('SELECT pg_backend_pid()').rows[0]?.[0]);
  const engine = new ResourceEngine(storage);
  try {
    const { devices, credentials } = createDeviceService(engine);
    const secrets: string[] = [];
    for (let first = 0; first < n; first += SEED_BATCH) {
      const names = Array.from(
        { length: Math.min(SEED_BATCH, n - first) },
        (_, i) => `${parent}/devices/d-${String(first + i).padStart(6, '0')}`,
      );
      engine.transaction(() => {
        devices.createMany(
          names.map((name) => ({ parent, resource: { name } })),
          { system: true },
        );
        secrets.push(...credentials.issueMany(names));
      });
      progress(secrets.length);
    }
    const cpu = process.cpuUsage(cpuAtStart);
    return { secrets, cpuSeconds: (cpu.user + cpu.system) / 1e6, postgresCpuSeconds: cpuSecondsOf(backend) };
  } finally {
    storage.close();
  }
}

/** A child process whose exit is noticed (and which dies with this one). */
function spawnChild(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; exited(): string | undefined } {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `${args.at(-1)} exited (code ${code}, signal ${signal})`));
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return { child, exited: () => exit };
}

export interface ReplicaProcess {
  pid: number;
  url: string;
  rssBytes(): number;
  /** what V8's young generation has committed (its /metrics: nodejs_heap_space_size_total_bytes of new*) */
  youngGenerationBytes(): Promise<number>;
  assertRunning(): void;
  stop(): Promise<void>;
}

/** The committed size of V8's new and new large object spaces in a control plane's Prometheus text. */
export function youngGenerationOf(metricsText: string): number {
  let bytes = 0;
  for (const match of metricsText.matchAll(/^nodejs_heap_space_size_total_bytes\{space="new[a-z_]*"\} (\d+)$/gm)) {
    bytes += Number(match[1]);
  }
  return bytes;
}

/**
 * A control-plane replica on `database` with its own data folder, run with CONTROL_PLANE_NODE_FLAGS and
 * `nodeArgs`; resolves once /healthz answers.
 */
export async function startReplicaProcess(
  database: string,
  adminKey: string,
  heartbeatSeconds: number,
  onLine: (line: string) => void,
  nodeArgs: readonly string[] = [],
): Promise<ReplicaProcess> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-replica-'));
  const { child, exited } = spawnChild(
    [
      ...CONTROL_PLANE_NODE_FLAGS,
      ...nodeArgs,
      SERVER_MAIN,
      ...['--port', String(port), '--data-dir', dataDir, '--database', database, '--log-level', 'warn'],
      ...['--heartbeat-seconds', String(heartbeatSeconds)],
    ],
    { ...process.env, OUTPOST_ADMIN_KEY: adminKey },
  );
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const url = `http://127.0.0.1:${port}`;
  const assertRunning = (): void => {
    const exit = exited();
    if (exit) throw new Error(exit);
  };
  for (const deadline = performance.now() + 60_000; ; await sleep(100)) {
    assertRunning();
    if (
      await fetch(`${url}/healthz`).then(
        (res) => res.ok,
        () => false,
      )
    )
      break;
    if (performance.now() > deadline) throw new Error(`replica ${url} did not answer /healthz within 60 s`);
  }
  return {
    pid: child.pid ?? 0,
    url,
    rssBytes: () => statusBytesOf(child.pid ?? 0, 'VmRSS'),
    async youngGenerationBytes() {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } });
      if (!res.ok) throw new Error(`${url}/metrics answered ${res.status}`);
      return youngGenerationOf(await res.text());
    },
    assertRunning,
    async stop() {
      if (!exited()) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await withTimeout(gone, 60_000, 'a replica stopping').catch(() => child.kill('SIGKILL'));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Connecting = Extract<SimulatorEvent, { event: 'connecting' }>;
type Connected = Extract<SimulatorEvent, { event: 'connected' }>;

export interface SimulatorProcess {
  pid: number;
  send(command: SimulatorCommand): void;
  readonly welcomed: number;
  /** its last progress while connecting: links started, and warnings (failed or lost connection attempts) */
  readonly connecting: Readonly<Omit<Connecting, 'event'>>;
  /** resolves once every link it was given had its welcome */
  readonly connected: Promise<Connected>;
  /** resolves when its latest `report` command has sent everything */
  readonly sent: Promise<void>;
  assertRunning(): void;
  stop(): Promise<void>;
}

/** A fleet-simulator process (its protocol: scripts/bench/fleet-simulator.ts). */
export async function startSimulatorProcess(onLine: (line: string) => void): Promise<SimulatorProcess> {
  const { child, exited } = spawnChild(['--import', 'tsx', SIMULATOR], process.env);
  createInterface({ input: child.stderr! }).on('line', onLine);
  let last: Connecting | undefined;
  let markReady = (): void => {};
  let markConnected = (_: Connected): void => {};
  let markSent = (): void => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const connected = new Promise<Connected>((resolve) => (markConnected = resolve));
  let sent = Promise.resolve();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as SimulatorEvent;
    if (event.event === 'ready') markReady();
    else if (event.event === 'connecting') last = event;
    else if (event.event === 'connected') markConnected(event);
    else if (event.event === 'sent') markSent();
  });
  await withTimeout(ready, 60_000, 'a simulator starting');
  const assertRunning = (): void => {
    const exit = exited();
    if (exit) throw new Error(exit);
  };
  return {
    pid: child.pid ?? 0,
    send(command) {
      // each report command ends with its own `sent` event
      if (command.cmd === 'report') sent = new Promise<void>((resolve) => (markSent = resolve));
      child.stdin!.write(JSON.stringify(command) + '\n');
    },
    get welcomed() {
      return last?.welcomed ?? 0;
    },
    get connecting() {
      return last ?? { started: 0, welcomed: 0, linkWarnings: 0 };
    },
    connected,
    get sent() {
      return sent;
    },
    assertRunning,
    async stop() {
      if (exited()) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.write(JSON.stringify({ cmd: 'stop' } satisfies SimulatorCommand) + '\n');
      await withTimeout(gone, 120_000, 'a simulator stopping').catch(() => child.kill('SIGKILL'));
    },
  };
}
