/**
 * Benchmark: one control plane holding a fleet of agent links (N = 10,000 and 19,000 by default).
 *
 * Three processes per fleet size, so the control plane's memory is measured alone:
 *   - this one: seeds N devices and their credentials into a fresh SQLite file with the real engine and
 *     device service (one transaction per 1,000 devices; the REST API would need 2N commits), then drives and
 *     measures;
 *   - the control plane: `node --max-semi-space-size=64 control-plane/dist/server/main.js --heartbeat-seconds 30 --log-level warn` on
 *     that folder, with a tiny preload that runs a full GC and prints process.memoryUsage() on SIGUSR2;
 *   - the simulator (scripts/bench/fleet-simulator.ts): N real `AgentLink`s in one process.
 * Both children start through `bash -c 'ulimit -n <hard limit>; exec ...'` (one process may hold only so many
 * sockets).
 *
 * Variants (issue 16), each on a fresh folder and control plane:
 *   plain         ws:// and a bearer credential per device (the default)
 *   --tls         the control plane serves https/wss (`--tls-cert/--tls-key`) with a certificate for 127.0.0.1
 *                 signed by a throwaway CA made with openssl in the run's temporary folder (lib/throwaway-ca.ts);
 *                 the links trust only that CA, as the agent's --ca-file
 *   --tls-via-nginx   as --tls, but Debian's nginx terminates TLS in front of a plain control plane, with README.md's
 *                 "Behind nginx" site (listening with reuseport), 2 workers that may hold 19,000 files each (two per
 *                 link); connect_cpu_ms_per_device is the control plane's CPU plus nginx's (master and workers),
 *                 each also on its own (connect_cpu_ms_per_device_control_plane, _nginx); with --compare it
 *                 replaces tls+key-pair by nginx-tls+key-pair
 *   --key-pair    each device gets an ed25519 key pair whose public half is registered through the devices
 *                 service's `:issueCredential` method with `publicKey`; every connection announces the device
 *                 (`odk1.<device>`) and answers the challenge the server sends on the link with its signature, as
 *                 the agent does. The simulator shares no TLS session between devices (each is a machine of
 *                 its own), so each connect costs the server one full handshake with --tls
 *   --compare     the connect phase of plain, then of --tls --key-pair, each as fast as it goes, then of plain
 *                 again with its links started no faster than the rate tls+key-pair reached (variant
 *                 "plain@<rate>/s"), at each fleet size (no status phases). The control plane's CPU per connect
 *                 depends on the rate: a slower wave pays more event-loop wake-ups, status-write transactions
 *                 (each flush carries fewer devices) and heartbeat rounds of the links already in, per connect, and
 *                 tls+key-pair goes slower because the simulator's side of each handshake and signature shares
 *                 the machine. So connect_cpu_ratio (CPU per connect of tls+key-pair over plain's at the same
 *                 rate, goal <= 2) compares like with like; connect_cpu_ratio_unpaced (over plain's as fast as it
 *                 went) and connect_rate_ratio (connect_per_s of tls+key-pair over plain's) compare the fastest runs
 *   --connect-rate R   the simulator starts at most R links per second (open loop, like a fleet's reconnect
 *                 wave); with --compare, every run is paced at R and connect_cpu_ratio compares those
 *   --heartbeat-seconds S   the control plane's heartbeat (default 30): each round pings every link
 *
 * Figures (one JSON line each on stdout, with "n" and "variant"; progress on stderr):
 *   connect_per_s           N / seconds from the connect command until the list API counts N devices with
 *                           status.connectionStatus = "CONNECTED" (at most `--concurrency` links wait for their
 *                           welcome at once, so the accept backlog never overflows; the list is asked only once
 *                           the simulator saw every welcome, so its cost does not grow with the connect time)
 *   rss_per_device_bytes    (VmRSS after N connected - VmRSS before) / N, each read after two full GCs, less
 *                           what V8's young generation committed meanwhile (goal <= 10240): its size is set by
 *                           --max-semi-space-size (CONTROL_PLANE_NODE_FLAGS), once per process, not by the devices;
 *                           heap_per_device_bytes the same for V8's heapUsed
 *   young_generation_bytes  what V8's young generation has committed after N connected (new and new large object
 *                           spaces, physical size): a fixed part of control_plane_rss_bytes
 *   control_plane_rss_bytes, control_plane_peak_rss_bytes
 *                           the control plane's VmRSS then, and its peak (VmHWM) since its start: what the
 *                           connect wave's garbage cost at most (the server lets its heap grow further while a wave
 *                           of TLS connections comes in: OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT in this
 *                           process's environment reaches the control plane, 0 to compare without)
 *   connect_major_gcs, connect_gc_pause_ms_per_device
 *                           the control plane's own full (mark-compact) collections from the reading before
 *                           connecting to the one after, and the main-thread pauses of all its collections then,
 *                           per device (perf_hooks 'gc' entries; the readings' forced collections are left out,
 *                           and so are incremental marking steps and concurrent marking threads, so the pauses are
 *                           a lower bound of what collecting costs)
 *   status_paced_*          `--paced-rate` status messages/s for `--paced-seconds`, open loop: the rate at which
 *                           they were stored and how long the last one took to land after it was sent
 *   status_stored_per_s     `--reports` status messages as fast as the server stores them (goal >= 5000): the
 *                           simulator never has more than `--window` messages sent but not yet stored; stored
 *                           is counted from the change log (one entry per device write), and at the end exactly,
 *                           as the sum of the seq marker every device's stored status carries
 *   db_writes_per_report    device writes / reports (1 when no report was merged into another in a batch)
 *   connect_cpu_ms_per_device, status_cpu_us_per_report
 *                           the control plane's own CPU time (/proc/<pid>/stat) per connect and per stored report, and
 *   connect_per_cpu_second, status_stored_per_cpu_second
 *                           the rates one core given wholly to the control plane would reach at that cost: the
 *                           machine is shared, so the wall-clock rates depend on what else runs, and
 *                           *_machine_cpu_stall_pct says how much (Linux PSI: share of the time some task waited
 *                           for a CPU)
 *   status_major_gcs, status_minor_gcs, status_gc_pause_us_per_report
 *                           the same collections counted over the status phase (`--reports`), pauses per stored
 *                           report
 *   status_db_cpu_us_per_report   (PostgreSQL) the CPU time of the database server's processes per stored report
 *                           (its backends, the control plane's among them, and its background processes)
 * A fleet size that cannot complete (no link welcomed for 60 s, a child that dies) is reported on stderr with where it
 * stopped, as figure "failed" = 1, and the next size still runs. Exits 0 when it ran (missed goals show as
 * "met": false), 1 when something failed.
 *
 * Run from the repository root:  npm run build && npx tsx scripts/bench/fleet-connect.ts
 *   [--devices 10000,19000] [--reports 100000] [--window 5000] [--paced-rate 5000] [--paced-seconds 10]
 *   [--concurrency 256] [--connect-rate R] [--heartbeat-seconds 30] [--tls] [--tls-via-nginx] [--key-pair] [--compare]
 *   (--compare: --devices defaults to 10000)
 *   [--profile-dir DIR]   (DIR: control-plane CPU profile and heap snapshots before/after; the snapshots
 *                          inflate the RSS figures of that run)
 *   [--control-plane FILE]   another control-plane entry (a .ts one runs through tsx), e.g. to compare a change
 *   [--control-plane-node-flags "FLAGS"]   node's flags for the control plane instead of the ones it ships with
 *                  (CONTROL_PLANE_NODE_FLAGS; "" for node's defaults), e.g. to compare young generation sizes
 *   [--postgres]   the control plane keeps its resources in PostgreSQL (--database): a throwaway cluster for the run
 *                  (initdb into a temporary folder, loopback, fsync on as SQLite's synchronous=FULL; needs Debian's
 *                  postgresql package), a fresh database in it per fleet size and variant; every figure carries
 *                  "store"
 *   [--database postgres://…]   the control plane keeps its resources in this empty PostgreSQL database instead
 *                  (one fleet size and variant, as it is not emptied between runs): to read its
 *                  pg_stat_statements or pg_stat_user_tables after the run
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { cpuSecondsOf, freePort, statusBytesOf } from './lib/process-stats.js';
import { startBenchNginx } from './lib/bench-nginx.js';
import type { BenchNginx } from './lib/bench-nginx.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { benchStoreOf, checkStoreFlags } from './lib/bench-store.js';
import { pgStatusProbe } from './lib/pg-status-probe.js';
import { createReporter, meetsGoal } from './lib/report.js';
import type { FigureOptions } from './lib/report.js';
import { newDeviceKeyPair } from './lib/simulated-identities.js';
import type { SimulatedIdentity } from './lib/simulated-identities.js';
import { withTempDir } from './lib/temp-dir.js';
import { createThrowawayTls } from './lib/throwaway-ca.js';
import type { ThrowawayTls } from './lib/throwaway-ca.js';
import { exitAfter, sleep, withTimeout } from './lib/time.js';
import type { SimulatorCommand, SimulatorEvent } from './fleet-simulator.js';
import { CONTROL_PLANE_NODE_FLAGS } from '../../control-plane/src/server/node-flags.js';

/** per variant run (--compare runs two) */
const TIME_LIMIT_MS = 10 * 60_000;
/** the connect phase fails when no link was welcomed for this long */
const CONNECT_STALL_MS = 60_000;
/** then the control plane's list must count every welcomed link CONNECTED within this */
const CONNECTED_COUNT_TIMEOUT_MS = 30_000;
/** per status phase; the rate of what was stored by then is still reported */
const STORE_TIMEOUT_MS = 90_000;
const SEED_BATCH = 1_000;
const HEARTBEAT_SECONDS = 30;
const PARENT = 'projects/bench/regions/r1';
/** a status message's deviceInfo.hardwareInformation.memory.totalBytes is its seq times this (see fleet-simulator.ts) */
const REPORT_MARKER_UNIT = 4096;
const REPORT_MARKER_PATH = ['status', 'deviceInfo', 'hardwareInformation', 'memory', 'totalBytes'];
const CONTROL_PLANE_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'server', 'main.js');
const SIMULATOR = join(REPO_ROOT, 'scripts', 'bench', 'fleet-simulator.ts');
const MEMORY_LINE = 'fleet-bench-memory ';
const PLAIN: Variant = { tls: false, keyPair: false, viaNginx: false };
/** the files nginx may open per worker: this machine caps a process at 20,000 */
const NGINX_FILES_PER_WORKER = 19_000;

const options = parseOptions();
requireBuiltPackages(['shared']);
if (!existsSync(options.controlPlaneMain)) {
  process.stderr.write(
    `benchmark cannot start: ${options.controlPlaneMain} is missing. Run \`npm run build\` first.\n`,
  );
  process.exit(1);
}
const shared = await import('@outpost/shared');

const report = createReporter('fleet-connect');
const resourceStore = await benchStoreOf(options);
// --compare runs plain a second time, paced at the rate tls+key-pair reached
const timeLimitMs = TIME_LIMIT_MS * (options.variants.length + (options.compare ? 1 : 0));
exitAfter(timeLimitMs, 1, `fleet-connect: gave up after ${timeLimitMs / 1000} s`);

const missedGoals: string[] = [];
let failed = false;
for (const n of options.devices) {
  if (options.compare) {
    await compareAt(n);
    continue;
  }
  for (const variant of options.variants) await runVariant(n, variant, options.connectRate);
}
report.progress(
  [
    failed ? 'done, but a fleet size failed (see above)' : 'done',
    missedGoals.length === 0 ? 'no goal missed' : `goals missed: ${missedGoals.join(', ')}`,
  ].join('; '),
);
process.exit(failed ? 1 : 0);

// ---- options ------------------------------------------------------------------------------------------

interface Variant {
  /** the control plane serves https/wss with a throwaway CA's certificate */
  tls: boolean;
  /** devices prove a key pair with a signed challenge instead of sending a bearer credential */
  keyPair: boolean;
  /** with tls: nginx terminates it in front of a plain control plane (README "Behind nginx") */
  viaNginx: boolean;
}

type VariantName = 'plain' | 'tls' | 'key-pair' | 'tls+key-pair' | 'nginx-tls' | 'nginx-tls+key-pair';

function variantName(variant: Variant): VariantName {
  if (variant.tls) {
    const tls = variant.viaNginx ? 'nginx-tls' : 'tls';
    return variant.keyPair ? `${tls}+key-pair` : tls;
  }
  return variant.keyPair ? 'key-pair' : 'plain';
}

/** The figures' variant: its name, and the pace when the links were started no faster than a rate. */
function runName(variant: Variant, connectRate: number | undefined): string {
  return connectRate === undefined ? variantName(variant) : `${variantName(variant)}@${connectRate}/s`;
}

/** One variant on a fresh folder and control plane; undefined (and figure "failed") when it could not complete. */
async function runVariant(
  n: number,
  variant: Variant,
  connectRate: number | undefined,
): Promise<ConnectFigures | undefined> {
  const name = runName(variant, connectRate);
  try {
    return await withTempDir('outpost-fleet-', (dir) => runFleet(n, variant, connectRate, dir));
  } catch (err) {
    failed = true;
    report.progress(`n=${n} ${name} FAILED: ${err instanceof Error ? err.message : String(err)}`);
    figuresFor(n, name)('failed', 1);
    return undefined;
  }
}

interface Options {
  devices: number[];
  variants: Variant[];
  /** measure only the connect phase of plain and tls+key-pair, and their ratios */
  compare: boolean;
  reports: number;
  window: number;
  pacedRate: number;
  pacedSeconds: number;
  concurrency: number;
  /** links the simulator starts per second at most; undefined: as fast as `concurrency` allows */
  connectRate?: number;
  heartbeatSeconds: number;
  profileDir?: string;
  controlPlaneMain: string;
  controlPlaneNodeFlags: readonly string[];
  /** the resources in a throwaway PostgreSQL cluster */
  postgres: boolean;
  /** the resources in this empty database instead (one fleet size and variant only) */
  database?: string;
}

function parseOptions(): Options {
  const { values, fail, integer } = parseBenchFlags({
    script: 'fleet-connect.ts',
    summary:
      'A simulated fleet of real agent links connecting to a built control plane (one process each): connect ' +
      'rate, memory per link, status reports stored per second, per fleet size and variant. One JSON line per ' +
      'figure on stdout, progress on stderr.',
    flags: {
      devices: {
        value: 'N[,N...]',
        help: 'fleet sizes, one run each; default: 10000,19000 (10000 with --compare)',
      },
      reports: { value: 'N', default: '100000', help: 'status messages of the as-fast-as-stored phase' },
      window: { value: 'N', default: '5000', help: 'status messages sent but not yet stored, at most' },
      'paced-rate': { value: 'N', default: '5000', help: 'status messages per second of the paced phase' },
      'paced-seconds': { value: 'N', default: '10', help: 'how long the paced phase sends' },
      concurrency: { value: 'N', default: '256', help: 'links waiting for their welcome at once, at most' },
      'connect-rate': {
        value: 'R',
        help: 'links started per second at most; default: as fast as --concurrency allows',
      },
      'heartbeat-seconds': { value: 'N', default: String(HEARTBEAT_SECONDS), help: "the control plane's heartbeat" },
      tls: { help: 'the control plane serves https/wss with a throwaway CA' },
      'key-pair': { help: 'devices prove a key pair with a signed challenge instead of sending a bearer credential' },
      'tls-via-nginx': { help: 'TLS terminated by nginx in front of a plain control plane (implies --tls)' },
      compare: { help: 'only the connect phase of plain and tls+key-pair, and their ratios' },
      'profile-dir': {
        value: 'DIR',
        help: 'a CPU profile of the control plane and heap snapshots before/after, written there (inflates RSS)',
      },
      'control-plane': {
        value: 'FILE',
        help: 'another control-plane entry (a .ts one runs through tsx); default: control-plane/dist/server/main.js',
      },
      'control-plane-node-flags': {
        value: 'FLAGS',
        help: 'node flags for the control plane instead of the ones it ships with (CONTROL_PLANE_NODE_FLAGS; "" for node\'s defaults)',
      },
      postgres: {
        help: 'the resources in a throwaway PostgreSQL cluster started for the run, a fresh database per fleet size and variant',
      },
      database: {
        value: 'URL',
        help: 'the resources in this empty PostgreSQL database (postgres://…; one fleet size and variant); default: SQLite',
      },
    },
  });
  checkStoreFlags(values, fail);
  const compare = values.compare;
  const viaNginx = values['tls-via-nginx'];
  if (compare && (values.tls || values['key-pair'])) {
    fail('--compare runs plain and --tls --key-pair (or --tls-via-nginx --key-pair) itself');
  }
  const devices = values.devices ?? (compare ? '10000' : '10000,19000');
  if (values.database !== undefined && !values.database.startsWith('postgres')) {
    fail('--database takes a postgres:// URL (SQLite is the default)');
  }
  return {
    devices: devices.split(',').map((d) => integer(d.trim(), 'devices')),
    variants: compare
      ? [PLAIN, { tls: true, keyPair: true, viaNginx }]
      : [{ tls: values.tls || viaNginx, keyPair: values['key-pair'], viaNginx }],
    compare,
    reports: integer(values.reports, 'reports'),
    window: integer(values.window, 'window'),
    pacedRate: integer(values['paced-rate'], 'paced-rate'),
    pacedSeconds: integer(values['paced-seconds'], 'paced-seconds'),
    concurrency: integer(values.concurrency, 'concurrency'),
    heartbeatSeconds: integer(values['heartbeat-seconds'], 'heartbeat-seconds'),
    ...(values['connect-rate'] === undefined ? {} : { connectRate: integer(values['connect-rate'], 'connect-rate') }),
    profileDir: values['profile-dir'] === undefined ? undefined : resolve(values['profile-dir']),
    controlPlaneMain: values['control-plane'] === undefined ? CONTROL_PLANE_MAIN : resolve(values['control-plane']),
    controlPlaneNodeFlags:
      values['control-plane-node-flags'] === undefined
        ? CONTROL_PLANE_NODE_FLAGS
        : values['control-plane-node-flags'].split(' ').filter((flag) => flag !== ''),
    postgres: values.postgres,
    ...(values.database === undefined ? {} : { database: values.database }),
  };
}

// ---- figures ------------------------------------------------------------------------------------------

type Figure = (name: string, value: number, extra?: FigureOptions) => void;

/** One JSON line per figure on stdout, like lib/report.ts's but carrying the fleet size `n` and the variant. */
function figuresFor(n: number, variant: string): Figure {
  return (name, value, extra = {}) => {
    const line: Record<string, unknown> = {
      bench: 'fleet-connect',
      store: resourceStore.kind,
      n,
      variant,
      figure: name,
      value: roundTo3(value),
    };
    if (extra.goal !== undefined) {
      const met = meetsGoal(value, extra.goal);
      line['goal'] = extra.goal;
      line['met'] = met;
      if (!met) missedGoals.push(`${name} (n=${n}, ${variant})`);
    }
    if (extra.unit !== undefined) line['unit'] = extra.unit;
    if (extra.samples !== undefined) line['samples'] = extra.samples;
    process.stdout.write(JSON.stringify(line) + '\n');
  };
}

function roundTo3(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : value;
}

// ---- one fleet size -----------------------------------------------------------------------------------

/** What the connect phase measured, for --compare. */
interface ConnectFigures {
  perSecond: number;
  cpuMsPerDevice: number;
}

async function runFleet(
  n: number,
  variant: Variant,
  connectRate: number | undefined,
  dir: string,
): Promise<ConnectFigures> {
  const name = runName(variant, connectRate);
  const label = `n=${n} ${name}`;
  const figure = figuresFor(n, name);
  const tls = variant.tls ? createThrowawayTls(dir) : undefined;
  const credentialsFile = join(dir, 'credentials.json');
  const seedStarted = performance.now();
  const database = resourceStore.freshDatabase();
  writeFileSync(credentialsFile, JSON.stringify(await seedDevices(dir, n, variant.keyPair, database)));
  report.progress(
    `${label}: seeded ${n} devices with ${variant.keyPair ? 'key pairs' : 'credentials'} in ${seconds(seedStarted)} s`,
  );

  const controlPlane = await startControlPlane(
    dir,
    `${n}-${name.replace('/', 'per')}`,
    variant.viaNginx ? undefined : tls,
    database,
  );
  let simulator: Simulator | undefined;
  let nginx: BenchNginx | undefined;
  try {
    if (variant.viaNginx && tls !== undefined) {
      nginx = await startBenchNginx(dir, Number(new URL(controlPlane.url).port), tls, NGINX_FILES_PER_WORKER);
    }
    const link: LinkTarget =
      nginx === undefined || tls === undefined
        ? { url: controlPlane.url, ...(controlPlane.caPem === undefined ? {} : { caPem: controlPlane.caPem }) }
        : { url: nginx.url, caPem: tls.caPem, proxyCpuSeconds: nginx.cpuSeconds };
    const client = new shared.OutpostClient({
      server: controlPlane.url,
      apiKey: controlPlane.apiKey,
      userAgent: 'fleet-bench',
      fetch: controlPlane.fetch,
    });
    const countConnected = async (): Promise<number> => {
      const page = await client.list(PARENT, 'devices', {
        filter: 'status.connectionStatus = "CONNECTED"',
        pageSize: 1,
        includePagingInfo: true,
      });
      return page.totalResultsCount ?? 0;
    };
    for (let i = 0; i < 5; i++) await countConnected(); // load the list path before the first memory reading
    const before = await controlPlane.settledMemory();
    report.progress(`${label}: control plane pid ${controlPlane.pid}, VmRSS ${mib(before.vmRss)} before connecting`);

    simulator = await startSimulator();
    const connect = await measureConnect(
      n,
      label,
      controlPlane,
      link,
      simulator,
      credentialsFile,
      connectRate,
      countConnected,
      figure,
    );

    const after = await controlPlane.settledMemory();
    const fds = openFdsOf(controlPlane.pid);
    report.progress(
      `${label}: VmRSS ${mib(after.vmRss)} with ${n} connected (heapUsed ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}, ` +
        `external ${mib(before.external)} -> ${mib(after.external)}), control plane fds ${fds}`,
    );
    const youngGrowth = after.youngGeneration - before.youngGeneration;
    figure('rss_per_device_bytes', (after.vmRss - before.vmRss - youngGrowth) / n, { goal: '<=10240', unit: 'bytes' });
    figure('young_generation_bytes', after.youngGeneration, { unit: 'bytes' });
    figure('heap_per_device_bytes', (after.heapUsed - before.heapUsed) / n, { unit: 'bytes' });
    const majorGcs = after.gc.major - before.gc.major;
    const gcPauseMs = after.gc.pauseMs - before.gc.pauseMs;
    report.progress(
      `${label}: control plane collections while connecting: ${majorGcs} full, ${after.gc.minor - before.gc.minor} ` +
        `young, ${gcPauseMs.toFixed(0)} ms of pauses`,
    );
    figure('connect_major_gcs', majorGcs, { samples: n });
    figure('connect_gc_pause_ms_per_device', gcPauseMs / n, { unit: 'ms' });
    figure('control_plane_rss_bytes', after.vmRss, { unit: 'bytes' });
    figure('control_plane_peak_rss_bytes', statusBytesOf(controlPlane.pid, 'VmHWM'), { unit: 'bytes' });
    if (options.compare) return connect;

    const probe = openStoreProbe(dir, database);
    try {
      await measurePacedReports(n, simulator, probe, figure);
      await measureMaxReports(n, controlPlane, simulator, probe, figure);
    } finally {
      probe.close();
    }
    return connect;
  } finally {
    if (simulator) await simulator.stop();
    await nginx?.stop();
    await controlPlane.stop();
  }
}

/** Where the links connect: the control plane, or nginx in front of it (whose CPU counts too). */
interface LinkTarget {
  url: string;
  /** the CA the links trust, when TLS */
  caPem?: string;
  proxyCpuSeconds?: () => number;
}

async function measureConnect(
  n: number,
  label: string,
  controlPlane: ControlPlane,
  link: LinkTarget,
  simulator: Simulator,
  credentialsFile: string,
  connectRate: number | undefined,
  countConnected: () => Promise<number>,
  figure: Figure,
): Promise<ConnectFigures> {
  const meter = startMeter(controlPlane.pid, simulator.pid, link.proxyCpuSeconds);
  const started = performance.now();
  simulator.send({
    cmd: 'connect',
    server: link.url,
    credentialsFile,
    concurrency: options.concurrency,
    ...(connectRate === undefined ? {} : { perSecond: connectRate }),
    ...(link.caPem === undefined ? {} : { ca: link.caPem }),
  });
  // The simulator's count is waited on, not the list API's: polling the list meanwhile would add its own CPU to
  // the connects', the more the slower they go (TLS, a busy machine). The list is asked once every link is in.
  let allWelcomed: ConnectedEvent | undefined;
  void simulator.connected.then((event) => (allWelcomed = event));
  let welcomed = 0;
  let welcomedAt = started;
  let lastProgress = started;
  const stalled = (where: string): Error => {
    const at = simulator.lastConnecting;
    return new Error(
      `${where}: simulator started ${at?.started ?? '?'} links, ${at?.welcomed ?? '?'} welcomed, ` +
        `${at?.linkWarnings ?? '?'} link warnings, simulator fds ${at?.fds ?? '?'}, ` +
        `control plane fds ${openFdsOf(controlPlane.pid)}, VmRSS ${mib(vmRssOf(controlPlane.pid))}; ` +
        describeUsage(meter.read()),
    );
  };
  while (allWelcomed === undefined) {
    if (performance.now() - welcomedAt > CONNECT_STALL_MS) {
      throw stalled(`connect stalled: no link welcomed for ${CONNECT_STALL_MS / 1000} s`);
    }
    controlPlane.assertRunning();
    simulator.assertRunning();
    await sleep(100);
    const now = simulator.lastConnecting?.welcomed ?? 0;
    if (now > welcomed) [welcomed, welcomedAt] = [now, performance.now()];
    if (performance.now() - lastProgress >= 2_000) {
      lastProgress = performance.now();
      report.progress(`${label}: ${welcomed} of ${n} links welcomed after ${seconds(started)} s`);
    }
  }
  const countDeadline = performance.now() + CONNECTED_COUNT_TIMEOUT_MS;
  let connected = await countConnected();
  while (connected < n) {
    if (performance.now() > countDeadline) {
      throw stalled(`every link was welcomed, yet the control plane counts ${connected}/${n} CONNECTED`);
    }
    await sleep(20);
    connected = await countConnected();
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = meter.read();
  const linked = allWelcomed;
  report.progress(
    `${label}: all ${n} CONNECTED after ${elapsed.toFixed(1)} s; simulator saw every welcome after ` +
      `${(linked.ms / 1000).toFixed(1)} s, ${linked.linkWarnings} link warnings, simulator fds ${linked.fds}, ` +
      `simulator RSS ${mib(linked.rssBytes)}; ${describeUsage(cpu)}`,
  );
  figure('connect_per_s', n / elapsed, { unit: 'devices/s', samples: n });
  figure('connect_seconds', elapsed, { unit: 's' });
  // nginx's CPU, when it terminates TLS, is the server side's too
  const serverCpu = cpu.controlPlane + (cpu.proxy ?? 0);
  figure('connect_cpu_ms_per_device', (serverCpu * 1000) / n, { unit: 'ms' });
  if (cpu.proxy !== undefined) {
    figure('connect_cpu_ms_per_device_control_plane', (cpu.controlPlane * 1000) / n, { unit: 'ms' });
    figure('connect_cpu_ms_per_device_nginx', (cpu.proxy * 1000) / n, { unit: 'ms' });
  }
  // what one core given wholly to the server side would manage at this CPU cost (the machine is shared)
  figure('connect_per_cpu_second', n / serverCpu, { unit: 'devices/s' });
  if (cpu.stallPercent !== undefined) figure('connect_machine_cpu_stall_pct', cpu.stallPercent, { unit: '%' });
  figure('link_warnings', linked.linkWarnings, { goal: '=0' });
  return { perSecond: n / elapsed, cpuMsPerDevice: (serverCpu * 1000) / n };
}

/**
 * --compare: plain, then tls+key-pair, as fast as each goes (`--connect-rate` paces both), then, unless paced,
 * plain again started at the rate tls+key-pair reached. CPU per connect depends on the rate: a slower wave pays
 * more event-loop wake-ups, status-write transactions and heartbeat rounds per connect, and tls+key-pair goes
 * slower because the simulator's side of each handshake and signature shares the machine. So
 * connect_cpu_ratio compares the two at the same rate; connect_cpu_ratio_unpaced and connect_rate_ratio compare
 * the runs as fast as each went.
 */
async function compareAt(n: number): Promise<void> {
  const [plainVariant, securedVariant] = options.variants as [Variant, Variant];
  const plain = await runVariant(n, plainVariant, options.connectRate);
  const secured = await runVariant(n, securedVariant, options.connectRate);
  if (plain === undefined || secured === undefined) {
    report.progress(`n=${n}: no comparison, a variant failed (see above)`);
    return;
  }
  const sameRate =
    options.connectRate === undefined ? await runVariant(n, PLAIN, Math.max(1, Math.round(secured.perSecond))) : plain;
  if (sameRate === undefined) {
    report.progress(`n=${n}: no comparison at the same rate, the paced plain run failed (see above)`);
    return;
  }
  const figure = figuresFor(n, `${variantName(securedVariant)}/plain`);
  figure('connect_cpu_ratio', secured.cpuMsPerDevice / sameRate.cpuMsPerDevice, { goal: '<=2' });
  figure('connect_cpu_ratio_unpaced', secured.cpuMsPerDevice / plain.cpuMsPerDevice);
  figure('connect_rate_ratio', secured.perSecond / plain.perSecond);
  report.progress(
    `n=${n}: control-plane CPU per connect ${secured.cpuMsPerDevice.toFixed(3)} ms with TLS and key pairs at ` +
      `${secured.perSecond.toFixed(0)}/s, ${sameRate.cpuMsPerDevice.toFixed(3)} ms plain at ` +
      `${sameRate.perSecond.toFixed(0)}/s, ${plain.cpuMsPerDevice.toFixed(3)} ms plain at ${plain.perSecond.toFixed(0)}/s`,
  );
}

// ---- status reports -----------------------------------------------------------------------------------

interface StoreProbe {
  /** device writes so far (the change log's head) */
  writes(): number;
  /** status reports stored so far: the sum over devices of the seq marker of the stored status */
  reports(): number;
  /** PostgreSQL: starts counting its server's CPU, the seconds used since read by the function returned */
  serverCpu?(): () => number;
}

/** The probe of the control plane's store: its SQLite file in `dir`, or its PostgreSQL `database`. */
function openStoreProbe(dir: string, database: string | undefined): StoreProbe & { close(): void } {
  if (database !== undefined) return pgStatusProbe(database, REPORT_MARKER_PATH, REPORT_MARKER_UNIT);
  const db = new Database(join(dir, 'outpost.db'), { readonly: true, fileMustExist: true });
  return { ...storeProbe(db), close: () => db.close() };
}

function storeProbe(db: Database.Database): StoreProbe {
  const head = db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'");
  const markers = db.prepare<[], { total: number }>(
    "SELECT TOTAL(json_extract(doc, '$.status.deviceInfo.hardwareInformation.memory.totalBytes')) AS total FROM r_devices",
  );
  return {
    writes: () => head.get()?.seq ?? 0,
    reports: () => Math.round((markers.get()?.total ?? 0) / REPORT_MARKER_UNIT),
  };
}

async function measurePacedReports(n: number, simulator: Simulator, store: StoreProbe, figure: Figure): Promise<void> {
  const total = options.pacedRate * options.pacedSeconds;
  const from = { reports: store.reports(), writes: store.writes() };
  const started = performance.now();
  const deadline = started + STORE_TIMEOUT_MS;
  simulator.send({ cmd: 'report', total, markerUnit: REPORT_MARKER_UNIT, perSecond: options.pacedRate });
  const sent = await withTimeout(simulator.nextSent(), STORE_TIMEOUT_MS, 'sending the paced reports');
  const sentAt = performance.now();
  const lastStoredAt = await waitForStored(store, from, sent.sent - sent.dropped, deadline);
  const stored = store.reports() - from.reports;
  const storedPerSecond = stored / (((lastStoredAt ?? performance.now()) - started) / 1000);
  report.progress(
    `n=${n}: paced ${total} reports at ${options.pacedRate}/s: sent in ${(sent.ms / 1000).toFixed(1)} s ` +
      `(${sent.dropped} dropped), ` +
      (lastStoredAt === undefined
        ? `only ${stored} stored after ${seconds(started)} s (gave up waiting)`
        : `the last stored ${(lastStoredAt - sentAt).toFixed(0)} ms after the last send`),
  );
  figure('status_paced_offered_per_s', total / (sent.ms / 1000), { unit: 'reports/s', samples: total });
  figure('status_paced_stored_per_s', storedPerSecond, { unit: 'reports/s', samples: stored });
  if (lastStoredAt !== undefined) figure('status_paced_last_stored_after_ms', lastStoredAt - sentAt, { unit: 'ms' });
}

async function measureMaxReports(
  n: number,
  controlPlane: ControlPlane,
  simulator: Simulator,
  store: StoreProbe,
  figure: Figure,
): Promise<void> {
  const total = options.reports;
  const window = Math.min(options.window, Math.floor(n / 2)); // a device's next report waits until its last is stored
  const from = { reports: store.reports(), writes: store.writes() };
  const collectionsBefore = await controlPlane.collections();
  const meter = startMeter(controlPlane.pid, simulator.pid);
  const serverCpu = store.serverCpu?.();
  const started = performance.now();
  const deadline = started + STORE_TIMEOUT_MS;
  simulator.send({ cmd: 'report', total, markerUnit: REPORT_MARKER_UNIT, allowance: window });
  const sentPromise = simulator.nextSent();
  // flow control: the simulator may run `window` reports ahead of what the change log shows stored
  let sending = true;
  void sentPromise.finally(() => (sending = false));
  const samples: { at: number; writes: number }[] = [];
  let lastProgress = started;
  while (sending && performance.now() < deadline) {
    const writes = store.writes() - from.writes;
    samples.push({ at: performance.now(), writes });
    simulator.send({ cmd: 'allow', upTo: writes + window });
    if (performance.now() - lastProgress >= 2_000) {
      lastProgress = performance.now();
      report.progress(`n=${n}: ${writes} of ${total} reports stored after ${seconds(started)} s`);
    }
    simulator.assertRunning();
    await sleep(20);
  }
  const sent = sending ? undefined : await sentPromise;
  const lastStoredAt = sent && (await waitForStored(store, from, sent.sent - sent.dropped, deadline));
  const elapsed = ((lastStoredAt ?? performance.now()) - started) / 1000;
  const cpu = meter.read();
  const databaseCpu = serverCpu?.();
  const collectionsAfter = await controlPlane.collections();
  const stored = store.reports() - from.reports;
  const writes = store.writes() - from.writes;
  const steady = steadyRate(samples);
  report.progress(
    `n=${n}: ${stored} of ${total} reports stored in ${elapsed.toFixed(1)} s` +
      (lastStoredAt === undefined
        ? ` (gave up after ${STORE_TIMEOUT_MS / 1000} s: the rate is of what was stored)`
        : '') +
      `, ${sent?.dropped ?? 0} dropped by links that were down, ${writes} device writes; middle 80%: ` +
      `${steady.toFixed(0)}/s; ${describeUsage(cpu)}` +
      (databaseCpu === undefined ? '' : `; PostgreSQL's server processes ${databaseCpu.toFixed(1)} s`),
  );
  figure('status_stored_per_s', stored / elapsed, { goal: '>=5000', unit: 'reports/s', samples: stored });
  figure('status_stored_steady_per_s', steady, { unit: 'reports/s' });
  figure('status_cpu_us_per_report', (cpu.controlPlane * 1e6) / Math.max(stored, 1), { unit: 'us' });
  figure('status_stored_per_cpu_second', stored / cpu.controlPlane, { unit: 'reports/s' });
  if (databaseCpu !== undefined) {
    figure('status_db_cpu_us_per_report', (databaseCpu * 1e6) / Math.max(stored, 1), { unit: 'us' });
  }
  figure('status_major_gcs', collectionsAfter.major - collectionsBefore.major, { samples: stored });
  figure('status_minor_gcs', collectionsAfter.minor - collectionsBefore.minor, { samples: stored });
  const gcPauseMs = collectionsAfter.pauseMs - collectionsBefore.pauseMs;
  figure('status_gc_pause_us_per_report', (gcPauseMs * 1000) / Math.max(stored, 1), { unit: 'us' });
  if (cpu.stallPercent !== undefined) figure('status_machine_cpu_stall_pct', cpu.stallPercent, { unit: '%' });
  if (lastStoredAt !== undefined) figure('status_reports_lost', total - stored, { goal: '=0', samples: total });
  figure('db_writes_per_report', writes / Math.max(stored, 1), { samples: stored });
}

/**
 * Waits until `expected` more reports than `from` are stored; returns when the last write landed (the change log
 * last moved), or undefined at the deadline.
 */
async function waitForStored(
  store: StoreProbe,
  from: { reports: number; writes: number },
  expected: number,
  deadline: number,
): Promise<number | undefined> {
  let writes = store.writes();
  let movedAt = performance.now();
  let countedAt = 0;
  for (;;) {
    // the exact count parses every device's document (a store busy writing is slowed by it), so it is read only
    // once writes have caught up, or paused, and then at most once a second
    const due = writes - from.writes >= expected || performance.now() - movedAt > 250;
    if (due && performance.now() - countedAt >= 1000) {
      countedAt = performance.now();
      if (store.reports() - from.reports >= expected) return movedAt;
    }
    if (performance.now() > deadline) return undefined;
    await sleep(10);
    const now = store.writes();
    if (now !== writes) {
      writes = now;
      movedAt = performance.now();
    }
  }
}

/** The store rate between the moments 10% and 90% of the writes had landed. */
function steadyRate(samples: readonly { at: number; writes: number }[]): number {
  const last = samples[samples.length - 1];
  if (!last || last.writes === 0) return Number.NaN;
  const from = samples.find((s) => s.writes >= last.writes * 0.1);
  const to = samples.find((s) => s.writes >= last.writes * 0.9);
  if (!from || !to || to.at <= from.at) return Number.NaN;
  return (to.writes - from.writes) / ((to.at - from.at) / 1000);
}

// ---- seeding ------------------------------------------------------------------------------------------

/**
 * Creates n devices in `dir`/outpost.db (in `database` when given) with the real engine, each with a credential or
 * (keyPairs) a new key pair whose public half goes through the devices service's `:issueCredential` method;
 * returns what the simulated devices authenticate with.
 */
async function seedDevices(
  dir: string,
  n: number,
  keyPairs: boolean,
  database: string | undefined,
): Promise<SimulatedIdentity[]> {
  const { openDatabase } = await import('../../control-plane/src/resources/storage/sqlite/open-database.js');
  const { ResourceEngine } = await import('../../control-plane/src/resources/resource-engine.js');
  const { PgStorage } = await import('../../control-plane/src/resources/storage/postgres/pg-storage.js');
  const { createDeviceService } = await import('../../control-plane/src/devices/device-service.js');
  const db = openDatabase(join(dir, 'outpost.db'));
  try {
    const engine = new ResourceEngine(database === undefined ? db : new PgStorage(database));
    const { devices, credentials, customMethods } = createDeviceService(engine);
    const issueCredential = customMethods.find((method) => method.verb === 'issueCredential');
    if (!issueCredential) throw new Error('the devices service has no :issueCredential method');
    const unused = new AbortController().signal;
    const identityOf = (device: string): SimulatedIdentity => {
      if (!keyPairs) return credentials.issue(device);
      const { publicKeyPem, privateKeyPem } = newDeviceKeyPair();
      issueCredential.handle({
        target: device,
        body: { publicKey: publicKeyPem },
        query: {},
        principal: undefined,
        authorization: undefined,
        authorize: () => {}, // seeding is the administrator's own doing
        signal: unused,
      });
      return { device, privateKeyPem };
    };
    const identities: SimulatedIdentity[] = [];
    for (let first = 0; first < n; first += SEED_BATCH) {
      engine.transaction(() => {
        for (let i = first; i < Math.min(first + SEED_BATCH, n); i++) {
          const name = `${PARENT}/devices/d-${String(i).padStart(6, '0')}`;
          devices.create({ parent: PARENT, resource: { name, displayName: `Bench device ${i}` } }, { system: true });
          identities.push(identityOf(name));
        }
      });
    }
    if (database !== undefined) engine.storage.close();
    return identities;
  } finally {
    db.close();
  }
}

// ---- the control plane process -------------------------------------------------------------------------

interface MemoryReading {
  vmRss: number;
  heapUsed: number;
  external: number;
  /** the physical size of V8's new and new large object spaces */
  youngGeneration: number;
  /** the control plane's collections since its start, forced ones left out (see memoryPreload) */
  gc: GcTotals;
}

interface GcTotals {
  major: number;
  minor: number;
  /** main-thread pauses of every kind of collection */
  pauseMs: number;
}

type MemoryLine = NodeJS.MemoryUsage & { gc: GcTotals; youngGeneration: number };

interface ControlPlane {
  pid: number;
  url: string;
  apiKey: string;
  /** the throwaway CA's PEM when the server speaks TLS */
  caPem?: string;
  /** a fetch for its REST API (trusting that CA) */
  fetch: typeof fetch;
  /** two full GCs (the preload's SIGUSR2 handler), then VmRSS and V8's numbers */
  settledMemory(): Promise<MemoryReading>;
  /** the collections so far, read after one forced full GC (which they leave out) */
  collections(): Promise<GcTotals>;
  assertRunning(): void;
  stop(): Promise<void>;
}

/**
 * Runs a full GC and prints process.memoryUsage() with the collections so far (GcTotals) and the young generation
 * on SIGUSR2; with a
 * folder, writes a heap snapshot there too. Collections are counted from perf_hooks' 'gc' entries, leaving out the
 * forced ones (gc() here); their pauses are those of young and full collections (an incremental marking entry
 * spans the mutator's time between its steps, so it is not a pause).
 */
function memoryPreload(snapshotDir: string | undefined): string {
  const snapshot =
    snapshotDir === undefined
      ? ''
      : `const file = ${JSON.stringify(snapshotDir)} + '/control-plane-' + Date.now() + '.heapsnapshot';` +
        `(await import('node:v8')).writeHeapSnapshot(file);`;
  const source =
    `import { PerformanceObserver, constants as k } from 'node:perf_hooks';` +
    `import { getHeapSpaceStatistics } from 'node:v8';` +
    `const gc = { major: 0, minor: 0, pauseMs: 0 };` +
    `new PerformanceObserver((list) => { for (const entry of list.getEntries()) {` +
    `  const { kind, flags } = entry.detail;` +
    `  if ((flags & k.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) continue;` +
    `  if (kind === k.NODE_PERFORMANCE_GC_MAJOR) { gc.major++; gc.pauseMs += entry.duration; }` +
    `  else if (kind === k.NODE_PERFORMANCE_GC_MINOR) { gc.minor++; gc.pauseMs += entry.duration; }` +
    `} }).observe({ entryTypes: ['gc'] });` +
    `process.on('SIGUSR2', async () => { globalThis.gc(); ${snapshot}` +
    `const youngGeneration = getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('new_'))` +
    `  .reduce((sum, s) => sum + s.physical_space_size, 0);` +
    `process.stderr.write(${JSON.stringify(MEMORY_LINE)} + JSON.stringify({ ...process.memoryUsage(), gc, youngGeneration }) + '\\n'); });`;
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

/** The control plane on `dir`, serving https/wss with `tls`'s certificate when given; `run` names its CPU profile. */
async function startControlPlane(
  dir: string,
  run: string,
  tls: ThrowawayTls | undefined,
  database: string | undefined,
): Promise<ControlPlane> {
  const port = await freePort();
  const apiKey = `fleet-bench-${randomBytes(16).toString('hex')}`;
  const profiling = options.profileDir;
  if (profiling) mkdirSync(profiling, { recursive: true });
  const nodeFlags = [
    ...(options.controlPlaneMain.endsWith('.ts') ? ['--import', 'tsx'] : []),
    ...options.controlPlaneNodeFlags,
    '--expose-gc',
    '--import',
    memoryPreload(profiling),
    ...(profiling
      ? ['--cpu-prof', '--cpu-prof-dir', profiling, '--cpu-prof-name', `control-plane-${run}.cpuprofile`]
      : []),
  ];
  const child = spawnWithMaxFiles(
    process.execPath,
    [
      ...nodeFlags,
      options.controlPlaneMain,
      ...['--port', String(port), '--data-dir', dir, '--log-level', 'warn'],
      ...(database === undefined ? [] : ['--database', database]),
      ...['--heartbeat-seconds', String(options.heartbeatSeconds)],
      ...(tls === undefined ? [] : ['--tls-cert', tls.certFile, '--tls-key', tls.keyFile]),
    ],
    { ...process.env, OUTPOST_ADMIN_KEY: apiKey },
  );
  const pid = child.pid ?? 0;
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `control plane exited (code ${code}, signal ${signal})`));
  const memoryWaiters: ((usage: MemoryLine) => void)[] = [];
  let logLines = 0;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (++logLines <= 10) report.progress(`control plane log: ${line.slice(0, 300)}`);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (line.startsWith(MEMORY_LINE)) memoryWaiters.shift()?.(JSON.parse(line.slice(MEMORY_LINE.length)));
    else report.progress(`control plane stderr: ${line}`);
  });
  const url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  const { fetchTrusting } = await import('../../control-plane/src/cli/trusted-ca.js');
  const restFetch = tls === undefined ? fetch : fetchTrusting(tls.caPem);
  const assertRunning = (): void => {
    if (exit) throw new Error(exit);
  };
  const deadline = performance.now() + 30_000;
  for (;;) {
    assertRunning();
    // the server registers the admin key once it listens (and its link layer started): ready when the key works
    const ready = await restFetch(`${url}/v1/${PARENT}/devices?pageSize=1`, {
      headers: { authorization: `Bearer ${apiKey}` },
    }).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (performance.now() > deadline) throw new Error('the control plane did not take its admin key within 30 s');
    await sleep(100);
  }

  const gc = async (): Promise<MemoryLine> => {
    const usage = new Promise<MemoryLine>((resolve) => memoryWaiters.push(resolve));
    child.kill('SIGUSR2');
    return withTimeout(usage, 120_000, 'a GC in the control plane');
  };
  return {
    pid,
    url,
    apiKey,
    ...(tls === undefined ? {} : { caPem: tls.caPem }),
    fetch: restFetch,
    assertRunning,
    async settledMemory() {
      await sleep(1_000); // the status writer flushes, sockets settle
      await gc();
      await sleep(1_000);
      const usage = await gc();
      return {
        vmRss: vmRssOf(pid),
        heapUsed: usage.heapUsed,
        external: usage.external,
        youngGeneration: usage.youngGeneration,
        gc: usage.gc,
      };
    },
    async collections() {
      return (await gc()).gc;
    },
    async stop() {
      if (exit) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await withTimeout(exited, 60_000, 'the control plane stopping').catch(() => child.kill('SIGKILL'));
    },
  };
}

// ---- the simulator process -----------------------------------------------------------------------------

type ConnectedEvent = Extract<SimulatorEvent, { event: 'connected' }>;
type ConnectingEvent = Extract<SimulatorEvent, { event: 'connecting' }>;
type SentEvent = Extract<SimulatorEvent, { event: 'sent' }>;

interface Simulator {
  pid: number;
  send(command: SimulatorCommand): void;
  /** the simulator's last connect progress */
  readonly lastConnecting: ConnectingEvent | undefined;
  /** resolves once every link had its welcome */
  connected: Promise<ConnectedEvent>;
  /** resolves when the current `report` command has sent everything */
  nextSent(): Promise<SentEvent>;
  assertRunning(): void;
  stop(): Promise<void>;
}

async function startSimulator(): Promise<Simulator> {
  const child = spawnWithMaxFiles(process.execPath, ['--import', 'tsx', SIMULATOR], process.env);
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `simulator exited (code ${code}, signal ${signal})`));
  createInterface({ input: child.stderr! }).on('line', (line) => report.progress(`simulator: ${line.slice(0, 400)}`));
  let markReady = (): void => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let markConnected = (_event: ConnectedEvent): void => {};
  const connected = new Promise<ConnectedEvent>((resolve) => (markConnected = resolve));
  let sentWaiter: ((event: SentEvent) => void) | undefined;
  let lastConnecting: ConnectingEvent | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as SimulatorEvent;
    if (event.event === 'ready') markReady();
    else if (event.event === 'connecting') lastConnecting = event;
    else if (event.event === 'connected') markConnected(event);
    else if (event.event === 'sent') sentWaiter?.(event);
  });
  await withTimeout(ready, 60_000, 'the simulator starting');
  return {
    pid: child.pid ?? 0,
    send: (command) => void child.stdin!.write(JSON.stringify(command) + '\n'),
    get lastConnecting() {
      return lastConnecting;
    },
    connected,
    nextSent: () => new Promise<SentEvent>((resolve) => (sentWaiter = resolve)),
    assertRunning: () => {
      if (exit) throw new Error(exit);
    },
    async stop() {
      if (exit) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.write(JSON.stringify({ cmd: 'stop' } satisfies SimulatorCommand) + '\n');
      await withTimeout(exited, 60_000, 'the simulator stopping').catch(() => child.kill('SIGKILL'));
    },
  };
}

// ---- processes ------------------------------------------------------------------------------------------

/** Spawns `command` with its soft open-files limit raised to the hard limit (one socket per device). */
function spawnWithMaxFiles(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn('bash', ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"', 'bash', command, ...args], {
    cwd: REPO_ROOT, // tsx and the workspace packages resolve from the repository
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // however this process ends (time limit, Ctrl-C, a failure), no child outlives it
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return child;
}

function vmRssOf(pid: number): number {
  return statusBytesOf(pid, 'VmRSS');
}

interface Usage {
  /** CPU seconds each process used in the phase */
  controlPlane: number;
  simulator: number;
  /** nginx's, when it terminates TLS in front of the control plane */
  proxy?: number;
  /** share of the phase's wall time in which some task on this machine waited for a CPU (Linux PSI), if known */
  stallPercent?: number;
}

/** The CPU the children (and nginx) use from now on, and how contended the machine's CPUs are meanwhile. */
function startMeter(controlPlanePid: number, simulatorPid: number, proxyCpuSeconds?: () => number): { read(): Usage } {
  const started = performance.now();
  const before = {
    cp: cpuSecondsOf(controlPlanePid),
    sim: cpuSecondsOf(simulatorPid),
    proxy: proxyCpuSeconds?.() ?? 0,
    stall: cpuStallMicros(),
  };
  return {
    read() {
      const stall = cpuStallMicros();
      const wallMicros = (performance.now() - started) * 1000;
      return {
        controlPlane: cpuSecondsOf(controlPlanePid) - before.cp,
        simulator: cpuSecondsOf(simulatorPid) - before.sim,
        ...(proxyCpuSeconds === undefined ? {} : { proxy: proxyCpuSeconds() - before.proxy }),
        ...(stall !== undefined && before.stall !== undefined
          ? { stallPercent: (100 * (stall - before.stall)) / wallMicros }
          : {}),
      };
    },
  };
}

function describeUsage(usage: Usage): string {
  const stall =
    usage.stallPercent === undefined
      ? ''
      : `, some task waited for a CPU ${usage.stallPercent.toFixed(0)}% of the time`;
  return (
    `CPU used meanwhile: control plane ${usage.controlPlane.toFixed(1)} s, ` +
    (usage.proxy === undefined ? '' : `nginx ${usage.proxy.toFixed(1)} s, `) +
    `simulator ${usage.simulator.toFixed(1)} s ` +
    `(machine: load average ${loadavg()[0]!.toFixed(1)}${stall})`
  );
}

/** Microseconds tasks on this machine have waited for a CPU since boot (/proc/pressure/cpu "some"), if known. */
function cpuStallMicros(): number | undefined {
  try {
    const match = /^some .*total=(\d+)$/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function openFdsOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}
function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
