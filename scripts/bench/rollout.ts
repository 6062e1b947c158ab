/**
 * Benchmark: a fleet-wide OS rollout in waves (issue 17). N simulated devices (default 10,000; scripts/sim-fleet:
 * the real agent link and OS updater per device, in-memory A/B slots) roll from 1.0.0 to 1.1.0 in three waves,
 * `wave:canary` (10), `wave:early` (500) and `wave:main` (the rest), with a simulated download of 1 s and reboot
 * of 2 s.
 *
 * Separate processes, so the control plane's CPU and memory are its own:
 *   - this one: seeds the devices (a `site` label, one of 5, and credentials) into a fresh SQLite file with the
 *     real engine, publishes the versions, runs the CLI and measures;
 *   - the control plane: `node --max-semi-space-size=64 control-plane/dist/server/main.js --heartbeat-seconds 30 --log-level warn`;
 *   - the fleet: this script in the role `fleet` (startSimFleet over every device);
 *   - the built CLI, twice: once every device is online on 1.0.0, `outpost devices label-waves --canary 10
 *     --early 5% --spread-by site,deviceType` (setup, not measured but for its seconds), then the measured
 *     `outpost devices rollout --version 1.1.0 --yes -o json`, whose NDJSON events give the waves' times.
 * The control plane and fleet start through `bash -c 'ulimit -n <hard limit>; exec ...'` (one socket per device).
 *
 * Figures (one JSON line each on stdout, with "n"; progress on stderr), from starting the rollout command until
 * it exits with every wave through (its `completed` event; every device is then checked to report 1.1.0):
 *   rollout_seconds                wall time (goal < 60)
 *   wave_<name>_seconds            each wave's share of it (waveStarted to promoted)
 *   wave_<name>_write_seconds      of which writing spec.osVersion (waveStarted to written)
 *   control_plane_cpu_seconds      user + system CPU time of the control plane meanwhile
 *   control_plane_peak_rss_mib     the control plane's peak resident memory (VmHWM, since its start; goal < 500)
 *   control_plane_peak_rss_before_rollout_mib  the same when the rollout starts (every device connected)
 *   device_writes_per_s            device writes (the store's change log) per second meanwhile
 *   device_writes                  how many
 *   cli_cpu_seconds, cli_peak_rss_mib  the rollout command's own CPU time and peak memory
 *   label_waves_seconds            how long label-waves took (setup)
 *   fleet_rss_mib                  the fleet process's resident memory with every device upgraded
 *   fleet_cpu_seconds              the fleet process's CPU time during the rollout (it shares the machine)
 *   load_average_1m                the machine's load when the rollout ended (the figures depend on it)
 *
 * Run from the repository root:  npm run build && npx tsx scripts/bench/rollout.ts
 *   [--devices 10000] [--canary 10] [--early 500] [--download-ms 1000] [--reboot-ms 2000]
 *   [--control-plane-max-old-space-mib M]   (node's --max-old-space-size for the control plane: how much of its
 *                                            peak RSS is garbage V8 had no reason to collect yet)
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { OutpostClient, RolloutEvent } from '@outpost/shared';
import type { SimDeviceSpec } from '../sim-fleet/index.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { runMeasuredCli } from './lib/measured-cli.js';
import { cpuSecondsOf, freePort } from './lib/process-stats.js';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, sleep, withTimeout } from './lib/time.js';
import { CONTROL_PLANE_NODE_FLAGS } from '../../control-plane/src/server/node-flags.js';

const PARENT = 'projects/bench/regions/r1';
const DEVICE_TYPE = 'simulated';
const FROM = '1.0.0';
const TO = '1.1.0';
const WAVES = ['canary', 'early', 'main'] as const;
const SEED_BATCH = 1_000;
const HEARTBEAT_SECONDS = 30;
const TIME_LIMIT_MS = 15 * 60_000;
const CONNECT_TIMEOUT_MS = 180_000;
const SITES = 5;
const CONTROL_PLANE_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'server', 'main.js');

/** What the fleet child prints on stdout, one JSON line each. */
type FleetEvent = { event: 'started'; devices: number } | { event: 'memory'; rssBytes: number };

/** argv[2] of the child process that runs the simulated fleet (see runFleet), its config file argv[3] */
const FLEET_ROLE = 'fleet';
if (process.argv[2] === FLEET_ROLE) await runFleet(process.argv[3] ?? '');
else await main(parseOptions());

// ---- the fleet child ----------------------------------------------------------------------------------

async function runFleet(configFile: string): Promise<void> {
  const { startSimFleet } = await import('../sim-fleet/index.js');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as {
    serverUrl: string;
    devices: SimDeviceSpec[];
    downloadMs: number;
    rebootMs: number;
  };
  let warnings = 0;
  const fleet = await startSimFleet({
    ...config,
    log: (line) => {
      if (++warnings <= 5) process.stderr.write(`fleet: ${line.slice(0, 300)}\n`);
    },
  });
  const emit = (event: FleetEvent): void => void process.stdout.write(JSON.stringify(event) + '\n');
  emit({ event: 'started', devices: config.devices.length });
  // stdin carries commands: "memory" asks for the RSS; its end stops the fleet
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === 'memory') emit({ event: 'memory', rssBytes: process.memoryUsage.rss() });
  });
  lines.on('close', () => {
    void fleet.stop().finally(() => process.exit(0));
  });
}

// ---- the benchmark ------------------------------------------------------------------------------------

interface Options {
  devices: number;
  canary: number;
  early: number;
  downloadMs: number;
  rebootMs: number;
  /** --max-old-space-size of the control plane's node (default: node's own) */
  controlPlaneMaxOldSpaceMib?: number;
}

async function main(options: Options): Promise<void> {
  requireBuiltPackages(['shared', 'control-plane']);
  const report = createReporter('rollout', { n: options.devices });
  exitAfter(TIME_LIMIT_MS, 1, `rollout: gave up after ${TIME_LIMIT_MS / 1000} s`);
  try {
    await withTempDir('outpost-rollout-', (dir) => runBench(options, dir, report));
  } catch (err) {
    report.progress(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    report.figure('failed', 1);
    process.exit(1);
  }
  const missed = report.missed();
  report.progress(missed.length === 0 ? 'done; no goal missed' : `done; goals missed: ${missed.join(', ')}`);
  process.exit(0);
}

function parseOptions(): Options {
  const { values, fail, integer } = parseBenchFlags({
    script: 'rollout.ts',
    summary:
      'A fleet-wide OS rollout in three waves (canary, early, main) over simulated devices, through the built ' +
      "control plane and CLI: its time, and the control plane's CPU and memory. One JSON line per figure on stdout.",
    flags: {
      devices: { value: 'N', default: '10000', help: 'simulated devices' },
      canary: { value: 'N', default: '10', help: 'devices of wave:canary' },
      early: { value: 'N', default: '500', help: 'devices of wave:early (wave:main holds the rest)' },
      'download-ms': { value: 'MS', default: '1000', help: "a simulated device's download time" },
      'reboot-ms': { value: 'MS', default: '2000', help: "a simulated device's reboot time" },
      'control-plane-max-old-space-mib': {
        value: 'M',
        help: "node's --max-old-space-size for the control plane; default: node's own",
      },
    },
  });
  const whole = (text: string, flag: string): number => integer(text, flag, 0);
  const maxOldSpace = values['control-plane-max-old-space-mib'];
  const options: Options = {
    ...(maxOldSpace !== undefined
      ? { controlPlaneMaxOldSpaceMib: whole(maxOldSpace, 'control-plane-max-old-space-mib') }
      : {}),
    devices: whole(values.devices, 'devices'),
    canary: whole(values.canary, 'canary'),
    early: whole(values.early, 'early'),
    downloadMs: whole(values['download-ms'], 'download-ms'),
    rebootMs: whole(values['reboot-ms'], 'reboot-ms'),
  };
  if (options.canary + options.early >= options.devices) {
    fail('--devices must exceed --canary plus --early (the main wave holds the rest)');
  }
  return options;
}

type Reporter = ReturnType<typeof createReporter>;

async function runBench(options: Options, dir: string, report: Reporter): Promise<void> {
  const n = options.devices;
  const seedStarted = performance.now();
  const specs = await seedDevices(dir, options);
  report.progress(`seeded ${n} devices with site labels and credentials in ${seconds(seedStarted)} s`);

  const controlPlane = await startControlPlane(dir, options, report);
  let fleet: FleetProcess | undefined;
  try {
    const { OutpostClient } = await import('@outpost/shared');
    const { publishSimulatedVersion } = await import('../sim-fleet/server-setup.js');
    const client = new OutpostClient({ server: controlPlane.url, apiKey: controlPlane.apiKey, userAgent: 'bench' });
    const server = { client, serverUrl: controlPlane.url, apiKey: controlPlane.apiKey };
    await publishSimulatedVersion(server, DEVICE_TYPE, FROM);
    await publishSimulatedVersion(server, DEVICE_TYPE, TO);
    const count = counter(client);

    const configFile = join(dir, 'fleet.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        serverUrl: controlPlane.url,
        devices: specs,
        downloadMs: options.downloadMs,
        rebootMs: options.rebootMs,
      }),
    );
    const connectStarted = performance.now();
    fleet = await startFleet(configFile, report);
    await waitFor(
      () => count(`status.connectionStatus = "CONNECTED" AND status.deviceInfo.osVersion = "${FROM}"`),
      n,
      CONNECT_TIMEOUT_MS,
      `every device online on ${FROM}`,
      [controlPlane, fleet],
      report,
    );
    report.progress(`all ${n} devices online on ${FROM} after ${seconds(connectStarted)} s`);
    const cli = { server: controlPlane.url, apiKey: controlPlane.apiKey };
    const labelSeconds = await labelWaves(options, dir, cli, count, report);

    const db = new Database(join(dir, 'outpost.db'), { readonly: true, fileMustExist: true });
    const head = db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'");
    const writes = (): number => head.get()?.seq ?? 0;
    try {
      const peakBefore = peakRssOf(controlPlane.pid);
      const writesBefore = writes();
      const cpuBefore = cpuSecondsOf(controlPlane.pid);
      const fleetCpuBefore = cpuSecondsOf(fleet.pid);
      const rollout = await runRollout(dir, cli, report);
      const cpu = cpuSecondsOf(controlPlane.pid) - cpuBefore;
      const fleetCpu = cpuSecondsOf(fleet.pid) - fleetCpuBefore;
      const deviceWrites = writes() - writesBefore;
      const load = loadavg()[0]!;
      const converged = await count(`status.deviceInfo.osVersion = "${TO}"`);
      if (converged !== n) throw new Error(`the rollout completed but only ${converged}/${n} devices report ${TO}`);
      const elapsed = rollout.seconds;
      report.progress(`every device reports ${TO} after ${elapsed.toFixed(1)} s (load average ${load.toFixed(2)})`);
      report.figure('rollout_seconds', elapsed, { goal: '<60', unit: 's' });
      for (const wave of rollout.waves) {
        report.figure(`wave_${wave.wave}_seconds`, wave.seconds, { unit: 's' });
        report.figure(`wave_${wave.wave}_write_seconds`, wave.writeSeconds, { unit: 's' });
      }
      report.figure('control_plane_cpu_seconds', cpu, { unit: 's' });
      report.figure('control_plane_peak_rss_mib', peakRssOf(controlPlane.pid) / 1024 / 1024, {
        goal: '<500',
        unit: 'MiB',
      });
      report.figure('control_plane_peak_rss_before_rollout_mib', peakBefore / 1024 / 1024, { unit: 'MiB' });
      report.figure('device_writes_per_s', deviceWrites / elapsed, { unit: 'writes/s', samples: deviceWrites });
      report.figure('device_writes', deviceWrites);
      report.figure('cli_cpu_seconds', rollout.cpuSeconds, { unit: 's' });
      report.figure('cli_peak_rss_mib', rollout.maxRssBytes / 1024 / 1024, { unit: 'MiB' });
      report.figure('label_waves_seconds', labelSeconds, { unit: 's' });
      report.figure('fleet_rss_mib', (await fleet.rss()) / 1024 / 1024, { unit: 'MiB' });
      report.figure('fleet_cpu_seconds', fleetCpu, { unit: 's' });
      report.figure('load_average_1m', load);
    } finally {
      db.close();
    }
  } finally {
    await fleet?.stop();
    await controlPlane.stop();
  }
}

// ---- the rollout: the built CLI ------------------------------------------------------------------------

type Count = (filter: string) => Promise<number>;
type CliTarget = { server: string; apiKey: string };

/** `outpost devices label-waves`: the canary from online devices, the early wave spread across sites; checked. */
async function labelWaves(
  options: Options,
  dir: string,
  cli: CliTarget,
  count: Count,
  report: Reporter,
): Promise<number> {
  const started = performance.now();
  // the early wave is a percentage of every device, rounded up: this one gives options.early devices
  const earlyPercent = (options.early * 100) / options.devices;
  const run = await runMeasuredCli(
    [
      'devices',
      'label-waves',
      ...['--parent', PARENT, '--canary', String(options.canary), '--early', `${earlyPercent}%`],
      ...['--spread-by', 'site,deviceType', '-o', 'json'],
    ],
    { ...cli, usageFile: join(dir, 'label-waves-usage.json') },
  );
  if (run.code !== 0) throw new Error(`label-waves exited ${run.code}: ${run.stderr.trim().slice(0, 2000)}`);
  const elapsed = (performance.now() - started) / 1000;
  const expected = {
    canary: options.canary,
    early: options.early,
    main: options.devices - options.canary - options.early,
  };
  for (const wave of WAVES) {
    const labelled = await count(inWave(wave));
    if (labelled !== expected[wave])
      throw new Error(`label-waves put ${labelled} devices in wave ${wave}, not ${expected[wave]}`);
  }
  report.progress(
    `label-waves: ${expected.canary} / ${expected.early} / ${expected.main} devices in ${elapsed.toFixed(1)} s`,
  );
  return elapsed;
}

interface RolloutRun {
  /** from starting the command to its `completed` event */
  seconds: number;
  waves: { wave: string; seconds: number; writeSeconds: number }[];
  cpuSeconds: number;
  maxRssBytes: number;
}

/** Runs `outpost devices rollout ... --yes -o json` and times its waves from its NDJSON events. */
async function runRollout(dir: string, cli: CliTarget, report: Reporter): Promise<RolloutRun> {
  const started = performance.now();
  const at = (): number => (performance.now() - started) / 1000;
  const waveTimes = new Map<string, { started?: number; written?: number; promoted?: number }>();
  const timesOf = (wave: string): { started?: number; written?: number; promoted?: number } => {
    if (!waveTimes.has(wave)) waveTimes.set(wave, {});
    return waveTimes.get(wave)!;
  };
  let completedAt: number | undefined;
  let lastProgress = 0;
  const run = await runMeasuredCli(
    ['devices', 'rollout', '--parent', PARENT, '--version', TO, '--waves', WAVES.join(','), '--yes', '-o', 'json'],
    {
      ...cli,
      usageFile: join(dir, 'rollout-usage.json'),
      onLine: (line) => {
        const event = JSON.parse(line) as RolloutEvent;
        switch (event.event) {
          case 'preflight':
            report.progress(`preflight: ${event.waves.map((w) => `${w.wave} ${w.toWrite} to write`).join(', ')}`);
            return;
          case 'waveStarted':
            timesOf(event.wave).started = at();
            return;
          case 'written':
            timesOf(event.wave).written = at();
            report.progress(
              `wave ${event.wave}: wrote ${event.written} devices (${event.refused.length} refused) at ${at().toFixed(1)} s`,
            );
            return;
          case 'progress':
            if (at() - lastProgress >= 5) {
              lastProgress = at();
              report.progress(`wave ${event.wave}: ${JSON.stringify(event.counts)}`);
            }
            return;
          case 'promoted':
            timesOf(event.wave).promoted = at();
            report.progress(`wave ${event.wave}: through at ${at().toFixed(1)} s ${JSON.stringify(event.counts)}`);
            return;
          case 'halted':
            report.progress(`wave ${event.wave} halted: ${event.reason}`);
            return;
          case 'completed':
            completedAt = at();
            return;
          default:
            report.progress(`rollout: ${line.slice(0, 300)}`);
        }
      },
    },
  );
  if (run.code !== 0 || completedAt === undefined) {
    throw new Error(`the rollout exited ${run.code} without completing: ${run.stderr.trim().slice(0, 2000)}`);
  }
  const waves = WAVES.map((wave) => {
    const t = timesOf(wave);
    if (t.started === undefined || t.written === undefined || t.promoted === undefined) {
      throw new Error(`wave ${wave} was not started, written and promoted: ${JSON.stringify(t)}`);
    }
    return { wave, seconds: t.promoted - t.started, writeSeconds: t.written - t.started };
  });
  return { seconds: completedAt, waves, cpuSeconds: run.cpuSeconds, maxRssBytes: run.maxRssBytes };
}

function inWave(wave: string): string {
  return `metadata.labels CONTAINS "wave:${wave}"`;
}

function counter(client: OutpostClient): Count {
  return async (filter) => {
    const page = await client.list(PARENT, 'devices', { filter, pageSize: 1, includePagingInfo: true });
    return page.totalResultsCount ?? 0;
  };
}

async function waitFor(
  count: () => Promise<number>,
  expected: number,
  timeoutMs: number,
  what: string,
  processes: Watched[],
  report: Reporter,
): Promise<void> {
  const started = performance.now();
  let lastProgress = started;
  for (;;) {
    for (const p of processes) p.assertRunning();
    const now = await count();
    if (now >= expected) return;
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}: ${now}/${expected}`);
    if (performance.now() - lastProgress > 5_000) {
      lastProgress = performance.now();
      report.progress(`waiting for ${what}: ${now}/${expected}`);
    }
    await sleep(250);
  }
}

// ---- seeding ------------------------------------------------------------------------------------------

/** Creates the devices with a site label and a credential each, with the real engine; returns their specs. */
async function seedDevices(dir: string, options: Options): Promise<SimDeviceSpec[]> {
  const { openDatabase } = await import('../../control-plane/src/resources/storage/sqlite/open-database.js');
  const { ResourceEngine } = await import('../../control-plane/src/resources/resource-engine.js');
  const { createDeviceService } = await import('../../control-plane/src/devices/device-service.js');
  const db = openDatabase(join(dir, 'outpost.db'));
  try {
    const engine = new ResourceEngine(db);
    const { devices, credentials } = createDeviceService(engine);
    const specs: SimDeviceSpec[] = [];
    for (let first = 0; first < options.devices; first += SEED_BATCH) {
      engine.transaction(() => {
        for (let i = first; i < Math.min(first + SEED_BATCH, options.devices); i++) {
          const name = `${PARENT}/devices/d-${String(i).padStart(6, '0')}`;
          devices.create(
            { parent: PARENT, resource: { name, metadata: { labels: { site: `site-${i % SITES}` } } } },
            { system: true },
          );
          specs.push({ name, credential: credentials.issue(name), deviceType: DEVICE_TYPE, factoryVersion: FROM });
        }
      });
    }
    return specs;
  } finally {
    db.close();
  }
}

// ---- processes ----------------------------------------------------------------------------------------

interface Watched {
  assertRunning(): void;
}

interface ControlPlane extends Watched {
  pid: number;
  url: string;
  apiKey: string;
  stop(): Promise<void>;
}

interface FleetProcess extends Watched {
  pid: number;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

async function startControlPlane(dir: string, options: Options, report: Reporter): Promise<ControlPlane> {
  const port = await freePort();
  const apiKey = `rollout-bench-${randomBytes(16).toString('hex')}`;
  const child = spawnWithMaxFiles(
    process.execPath,
    [
      ...CONTROL_PLANE_NODE_FLAGS,
      ...(options.controlPlaneMaxOldSpaceMib !== undefined
        ? [`--max-old-space-size=${options.controlPlaneMaxOldSpaceMib}`]
        : []),
      CONTROL_PLANE_MAIN,
      ...['--port', String(port), '--data-dir', dir, '--log-level', 'warn'],
      ...['--heartbeat-seconds', String(HEARTBEAT_SECONDS)],
    ],
    { ...process.env, OUTPOST_ADMIN_KEY: apiKey },
  );
  const exit = exitOf(child, 'control plane');
  let logLines = 0;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (++logLines <= 10) report.progress(`control plane log: ${line.slice(0, 300)}`);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => report.progress(`control plane: ${line}`));
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 30_000;
  for (;;) {
    exit.assertRunning();
    const healthy = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) break;
    if (performance.now() > deadline) throw new Error('the control plane did not answer /healthz within 30 s');
    await sleep(100);
  }
  return {
    pid: child.pid ?? 0,
    url,
    apiKey,
    assertRunning: exit.assertRunning,
    stop: () => stopChild(child, 'SIGTERM'),
  };
}

async function startFleet(configFile: string, report: Reporter): Promise<FleetProcess> {
  const script = fileURLToPath(import.meta.url);
  const child = spawnWithMaxFiles(process.execPath, ['--import', 'tsx', script, FLEET_ROLE, configFile], process.env);
  const exit = exitOf(child, 'fleet');
  createInterface({ input: child.stderr! }).on('line', (line) => report.progress(line.slice(0, 400)));
  const waiters: ((event: FleetEvent) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as FleetEvent;
    for (const waiter of waiters.splice(0)) waiter(event);
  });
  const next = (): Promise<FleetEvent> => new Promise((resolve) => waiters.push(resolve));
  const started = await withTimeout(next(), CONNECT_TIMEOUT_MS, 'the fleet starting');
  if (started.event !== 'started') throw new Error(`the fleet said ${JSON.stringify(started)} first`);
  return {
    pid: child.pid ?? 0,
    assertRunning: exit.assertRunning,
    async rss() {
      const answer = next();
      child.stdin!.write('memory\n');
      const event = await withTimeout(answer, 30_000, 'the fleet reading its memory');
      return event.event === 'memory' ? event.rssBytes : Number.NaN;
    },
    async stop() {
      child.stdin!.end();
      await stopChild(child, undefined);
    },
  };
}

/** Spawns `command` with its soft open-files limit raised to the hard limit (one socket per device). */
function spawnWithMaxFiles(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn('bash', ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"', 'bash', command, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // however this process ends (time limit, Ctrl-C, a failure), no child outlives it
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return child;
}

function exitOf(child: ChildProcess, what: string): Watched {
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `the ${what} exited (code ${code}, signal ${signal})`));
  return {
    assertRunning: () => {
      if (exit !== undefined) throw new Error(exit);
    },
  };
}

/** Sends `signal` (none: waits for the child to end by itself) and kills it after 60 s. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals | undefined): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (signal !== undefined) child.kill(signal);
  await withTimeout(exited, 60_000, 'a child process stopping').catch(() => child.kill('SIGKILL'));
}

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRssOf(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}
