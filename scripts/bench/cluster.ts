/**
 * Benchmark (issue 23): a fleet across control-plane replicas on one PostgreSQL, on this machine. A durable
 * PostgreSQL in a temporary folder; `--devices` devices, each with a credential, seeded into it through the real
 * engine and devices service (credentials live in the shared store, so every replica knows every device);
 * `--replicas` replica processes of the build (control-plane/dist); `--simulators` fleet-simulator processes
 * (scripts/bench/fleet-simulator.ts: real agent links), simulator i linking its share of the devices to replica
 * i mod R (what a round-robin balancer does). One process holds at most about 19,000 sockets here (open files
 * 20,000), hence several of each. Figures (one JSON line each; progress on stderr):
 *   devices_connected                 links welcomed and counted CONNECTED in the store (goal >= 50000)
 *   connect_per_s, connect_seconds    devices / seconds from the connect command until the store counts them all
 *                                     CONNECTED (the simulators start at most --concurrency links at once each,
 *                                     and with --connect-rate at most that many a second in all)
 *   rss_per_device_bytes              per replica (figure line with "replica"): (VmRSS after its links came in -
 *                                     VmRSS before - what V8's young generation committed meanwhile) / its links,
 *                                     no forced GC; rss_bytes its VmRSS then, young_generation_bytes its young
 *                                     generation then (a fixed part, set by --max-semi-space-size in
 *                                     CONTROL_PLANE_NODE_FLAGS, which every replica runs with)
 *   status_stored_per_s               --reports status messages, as fast as the cluster stores them (goal >=
 *                                     10000): never more than --window (at most half the devices) sent but not
 *                                     yet written (the change log's head: one entry per device write); stored is
 *                                     counted exactly, as the sum of the seq marker every device's status carries
 *                                     (measured after one first report of every device: see first_*)
 *   first_status_stored_per_s (and first_* of the figures below)   the pass before it: every device's first
 *                                     status since its link came in (its deviceInfo is stored and its spec sent)
 *   db_writes_per_report              device writes / reports stored (below 1 when reports were merged)
 *   pg_commits_per_s, pg_rows_written_per_s   PostgreSQL's own counters (pg_stat_database) over that phase
 *   replica_cpu_ms_per_connect, replica_cpu_us_per_report   the replicas' CPU time (/proc) over the connect and
 *                                     the report phase, per device and per stored report; pg_cpu_* the same for
 *                                     PostgreSQL's processes (those pg_stat_activity lists: backends and workers)
 *   watch_delivery_across_replicas_p50_ms / _p99_ms   with the fleet connected: --watch-writes creates through
 *                                     replica 1, each timed to its change on a watch of replica 2 (goal p99 < 200)
 *   watch_delivery_same_replica_p99_ms, create_ack_p50_ms   replica 1's own watch, and the creates' answers
 *   seed_seconds, seed_per_s          storing the devices and their credentials (the engine's bulk create,
 *                                     1,000 per transaction); seed_cpu_us_per_device and seed_pg_cpu_us_per_device
 *                                     the CPU it took in this process and in its PostgreSQL backend
 *   load_average_1m_start, _end       the machine's load (other work shares its two cores)
 *   cross_replica_command_round_trip_p50_ms / _p99_ms   with the fleet connected: `:reboot` through replica 2
 *                                     for devices linked to replica 1, one at a time (goal p99 < 50)
 * With --metrics, last (so the figures above are those of a run without it), the agents' every-minute message
 * (scripts/bench/cluster/metrics-phase.ts): first one pass of a metrics message per device (first_*), then
 * --metrics-messages (default --reports) of them, built by the agent's metricsSampleFromFacts, paced like the
 * status reports (at most --window device writes behind) and counted exactly as the samples the metrics
 * history recorded (its hour tier's counts):
 *   metrics_stored_per_s, db_writes_per_metrics, pg_commits_per_metrics, pg_rows_written_per_metrics (rows
 *                                     inserted, updated or deleted: pg_stat_database), replica_cpu_us_per_metrics,
 *                                     pg_cpu_us_per_metrics   per sample recorded, as for status reports above
 *   metrics_history_rows_per_device, _bytes_per_device, _bytes_per_row   the history table device_metric_points
 *                                     with its indexes (pg_total_relation_size, after a VACUUM) over --devices;
 *                                     _compact_bytes_per_row the same after VACUUM FULL (live rows only)
 *   metrics_prune_rows_deleted_per_device, metrics_prune_ms, metrics_prune_{replica,pg}_cpu_us_per_{row,device}
 *                                     the history's prune (MetricsHistory.prune: the leader's job every 10
 *                                     minutes) run once from this process as if 25 h had passed (the raw and
 *                                     one-minute tiers expire), its CPU here and in its PostgreSQL backend
 *                                     (/proc counts CPU in 10 ms ticks: meaningful at thousands of devices)
 *
 * Run from the repository root (after `npm run build`; needs PostgreSQL: apt-get install postgresql):
 *   npx tsx scripts/bench/cluster.ts [--devices 50000] [--replicas 4] [--simulators 4] [--reports 100000]
 *     [--window 10000] [--concurrency 256] [--connect-rate R] [--heartbeat-seconds 30] [--watch-writes 300]
 *     [--cpu-prof-dir DIR]   (each replica writes a CPU profile there when it stops: node --cpu-prof)
 *     [--seed-only]          (only the seeding and its figures: no replicas, no simulators)
 *     [--metrics [--metrics-messages M]]   (the metrics phase above, at the end)
 *     [--help]               (lists the flags, then prints this comment)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseBenchFlags } from './lib/bench-flags.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import type { FigureOptions, Reporter } from './lib/report.js';
import { percentile } from './lib/stats.js';
import { exitAfter, sleep } from './lib/time.js';
import { seedDevices, startReplicaProcess, startSimulatorProcess } from './lib/cluster-fleet.js';
import type { ReplicaProcess, Seeded, SimulatorProcess } from './lib/cluster-fleet.js';
import { cpuMeter } from './cluster/cpu-meter.js';
import type { CpuMeter } from './cluster/cpu-meter.js';
import { measureHistoryAndPrune, measureMetricsMessages } from './cluster/metrics-phase.js';
import { runPacedPhase } from './cluster/paced-phase.js';

const PARENT = 'projects/bench/regions/r1';
const REPORT_MARKER_UNIT = 4096;
const CONNECT_STALL_MS = 120_000;
const COMMAND_ROUND_TRIPS = 310;
// the probes read the store's tables directly, so that they cost the replicas nothing
const CONNECTED_COUNT = `SELECT count(*) FROM r_devices WHERE doc->'status'->>'connectionStatus' = 'CONNECTED'`;
const STORED_REPORTS = `SELECT COALESCE(sum((doc#>>'{status,deviceInfo,hardwareInformation,memory,totalBytes}')::bigint), 0) / $1
  AS reports FROM r_devices`;
const PRESENCE = `SELECT count(p.device) AS links, r.expires > now() AS live
  FROM outpost_replicas r LEFT JOIN outpost_presence p USING (replica) GROUP BY r.replica, r.expires ORDER BY r.replica`;

const {
  values: flags,
  fail,
  integer,
} = parseBenchFlags({
  script: 'cluster.ts',
  summary:
    'A fleet across control-plane replicas on one PostgreSQL on this machine: connect rate, memory per link, status ' +
    'reports stored per second, watch delivery and commands across replicas. One JSON line per figure on stdout.',
  printOpeningCommentOf: import.meta.url,
  flags: {
    devices: { value: 'N', default: '50000', help: 'devices seeded, each with a credential' },
    replicas: { value: 'N', default: '4', help: 'control-plane replica processes, at least 2' },
    simulators: { value: 'N', help: 'fleet-simulator processes; default: as many as --replicas' },
    reports: { value: 'N', default: '100000', help: 'status messages of the report phase' },
    window: { value: 'N', default: '10000', help: 'status messages sent but not yet stored, at most' },
    concurrency: { value: 'N', default: '256', help: 'links each simulator starts at once, at most' },
    'connect-rate': { value: 'R', help: 'links started per second in all, at most; default: no pacing' },
    'heartbeat-seconds': { value: 'N', default: '30', help: "the replicas' heartbeat" },
    'watch-writes': { value: 'N', default: '300', help: 'creates through replica 1 timed to a watch of replica 2' },
    'cpu-prof-dir': { value: 'DIR', help: 'each replica writes a CPU profile there when it stops (node --cpu-prof)' },
    'seed-only': { help: 'only the seeding and its figures: no replicas, no simulators' },
    metrics: { help: "the metrics phase at the end (the agents' every-minute message)" },
    'metrics-messages': { value: 'M', help: 'metrics messages of that phase (with --metrics); default: --reports' },
  },
});
const n = integer(flags.devices, 'devices');
const replicaCount = integer(flags.replicas, 'replicas');
const simulatorCount = integer(flags.simulators ?? flags.replicas, 'simulators');
const reports = integer(flags.reports, 'reports');
const window = integer(flags.window, 'window');
const concurrency = integer(flags.concurrency, 'concurrency');
const connectRate = flags['connect-rate'] === undefined ? undefined : integer(flags['connect-rate'], 'connect-rate');
const heartbeatSeconds = integer(flags['heartbeat-seconds'], 'heartbeat-seconds');
const watchWrites = integer(flags['watch-writes'], 'watch-writes');
const seedOnly = flags['seed-only'];
if (flags['metrics-messages'] !== undefined && !flags.metrics) fail('--metrics-messages needs --metrics');
const metricsMessages = flags.metrics ? integer(flags['metrics-messages'] ?? flags.reports, 'metrics-messages') : 0;
const profiling = flags['cpu-prof-dir'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', flags['cpu-prof-dir']];
if (replicaCount < 2) fail('--replicas must be at least 2 (watch delivery goes from one to another)');

requireBuiltPackages(['shared', 'control-plane']);
const { OutpostClient } = await import('@outpost/shared');
const { startPostgresCluster } = await import('../../control-plane/test/helpers/postgres-cluster.js');

const report = createReporter('cluster', { n, replicas: replicaCount });
const perProcess = Math.ceil(n / Math.min(replicaCount, simulatorCount));
const openFiles = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 0);
if (perProcess + 500 > openFiles) {
  throw new Error(
    `${perProcess} links per process need more open files than ${openFiles}: add replicas and simulators`,
  );
}
exitAfter(40 * 60_000, 1, 'cluster: gave up after 40 minutes');
report.figure('load_average_1m_start', loadavg()[0]!);

const adminKey = `cluster-bench-${randomBytes(16).toString('hex')}`;
const postgres = await startPostgresCluster();
const database = postgres.createDatabase();
const folder = mkdtempSync(join(tmpdir(), 'outpost-cluster-bench-'));
const replicas: ReplicaProcess[] = [];
const simulators: SimulatorProcess[] = [];
const probe = new pg.Client({ connectionString: database });
try {
  const seeded = await seed();
  if (!seedOnly) await measureFleet(seeded.secrets);
  report.figure('load_average_1m_end', loadavg()[0]!);
} finally {
  await Promise.all(simulators.map((simulator) => simulator.stop()));
  await Promise.all(replicas.map((replica) => replica.stop()));
  await probe.end().catch(() => undefined);
  postgres.stop();
  rmSync(folder, { recursive: true, force: true });
}

/** seed_seconds, seed_per_s, seed_cpu_us_per_device, seed_pg_cpu_us_per_device: the devices and credentials stored. */
async function seed(): Promise<Seeded> {
  const started = performance.now();
  let lastProgress = started;
  const seeded = await seedDevices(database, PARENT, n, (stored) => {
    if (stored < n && performance.now() - lastProgress < 5_000) return;
    lastProgress = performance.now();
    report.progress(`seeded ${stored} of ${n} devices with credentials in ${seconds(started)} s`);
  });
  const wall = (performance.now() - started) / 1000;
  report.figure('seed_seconds', wall, { unit: 's' });
  report.figure('seed_per_s', n / wall, { unit: 'devices/s' });
  report.figure('seed_cpu_us_per_device', (seeded.cpuSeconds * 1e6) / n, { unit: 'us' });
  report.figure('seed_pg_cpu_us_per_device', (seeded.postgresCpuSeconds * 1e6) / n, { unit: 'us' });
  return seeded;
}

/** Everything after the seeding: replicas, simulators, and the fleet's figures. */
async function measureFleet(secrets: readonly string[]): Promise<void> {
  const replicaPids = (): number[] => replicas.map((replica) => replica.pid);
  await probe.connect();
  const noisy = (who: string) => (line: string) => report.progress(`${who}: ${line.slice(0, 300)}`);
  for (let i = 0; i < replicaCount; i++) {
    replicas.push(
      await startReplicaProcess(database, adminKey, heartbeatSeconds, noisy(`replica ${i + 1}`), profiling),
    );
  }
  for (let i = 0; i < simulatorCount; i++) simulators.push(await startSimulatorProcess(noisy(`simulator ${i + 1}`)));
  report.progress(`replicas ${replicas.map((r) => r.url).join(' ')}; ${simulatorCount} simulators`);

  const linksOf = new Array<number>(replicaCount).fill(0);
  const rssBefore = replicas.map((replica) => replica.rssBytes());
  const youngBefore = await Promise.all(replicas.map((replica) => replica.youngGenerationBytes()));
  const connectCpu = cpuMeter(replicaPids(), probe);
  await connectCpu.start();
  const started = performance.now();
  simulators.forEach((simulator, i) => {
    const mine = secrets.filter((_, j) => j % simulatorCount === i);
    const credentialsFile = join(folder, `credentials-${i}.json`);
    writeFileSync(credentialsFile, JSON.stringify(mine));
    linksOf[i % replicaCount]! += mine.length;
    simulator.send({
      cmd: 'connect',
      server: replicas[i % replicaCount]!.url,
      credentialsFile,
      concurrency,
      ...(connectRate === undefined ? {} : { perSecond: connectRate / simulatorCount }),
    });
  });
  const welcomed = await allConnected(simulators, replicas, started);
  const connected = await until(
    async () => Number((await probe.query<{ count: string }>(CONNECTED_COUNT)).rows[0]?.count ?? 0),
    (count) => count >= welcomed,
    120_000,
    'the store counting every device CONNECTED',
  );
  const connectSeconds = (performance.now() - started) / 1000;
  report.figure('devices_connected', connected, { goal: '>=50000' });
  report.figure('connect_per_s', n / connectSeconds, { unit: 'devices/s' });
  report.figure('connect_seconds', connectSeconds, { unit: 's' });
  const connectCost = await connectCpu.read();
  report.figure('replica_cpu_ms_per_connect', (connectCost.replicas * 1000) / n, { unit: 'ms' });
  report.figure('pg_cpu_ms_per_connect', (connectCost.postgres * 1000) / n, { unit: 'ms' });
  await sleep(5_000); // the status writers flush, the sockets settle
  const youngAfter = await Promise.all(replicas.map((replica) => replica.youngGenerationBytes()));
  replicas.forEach((replica, i) => {
    const perReplica = createReporter('cluster', { n, replicas: replicaCount, replica: i + 1, links: linksOf[i]! });
    const rss = replica.rssBytes();
    const youngGrowth = youngAfter[i]! - youngBefore[i]!;
    perReplica.figure('rss_per_device_bytes', (rss - rssBefore[i]! - youngGrowth) / linksOf[i]!, { unit: 'bytes' });
    perReplica.figure('rss_bytes', rss, { unit: 'bytes' });
    perReplica.figure('young_generation_bytes', youngAfter[i]!, { unit: 'bytes' });
  });

  // a device's first status after its link came in stores its deviceInfo (which sends it its spec): that one
  // pass first, then the reports of devices whose status is known, as a fleet sends them all day
  await measureStatusReports(report, 'first_', n, simulators, probe, cpuMeter(replicaPids(), probe));
  await measureStatusReports(report, '', reports, simulators, probe, cpuMeter(replicaPids(), probe));
  await measureWatchDelivery(report, replicas[0]!.url, replicas[1]!.url);
  await measureCommandRoundTrip(
    report,
    replicas[1]!.url,
    // simulator 0 links devices 0, S, 2S, ... to replica 1
    Array.from(
      { length: Math.min(COMMAND_ROUND_TRIPS, Math.floor(n / simulatorCount)) },
      (_, k) => `${PARENT}/devices/d-${String(k * simulatorCount).padStart(6, '0')}`,
    ),
  );
  if (metricsMessages > 0) {
    // last, so that every figure above is what a run without --metrics measures
    const phase = { out: report, sims: simulators, client: probe, ahead: Math.min(window, Math.floor(n / 2)) };
    await measureMetricsMessages({ ...phase, prefix: 'first_', count: n, cpu: cpuMeter(replicaPids(), probe) });
    await measureMetricsMessages({ ...phase, prefix: '', count: metricsMessages, cpu: cpuMeter(replicaPids(), probe) });
    await measureHistoryAndPrune(report, probe, database, n);
  }
}

/**
 * Waits for every simulator's `connected`, or until no link was welcomed anywhere for CONNECT_STALL_MS (the
 * figures are then those of the links that came in, and devices_connected says how many); the links welcomed.
 */
async function allConnected(sims: SimulatorProcess[], servers: ReplicaProcess[], since: number): Promise<number> {
  let done = false;
  void Promise.all(sims.map((simulator) => simulator.connected)).then(() => (done = true));
  let welcomed = 0;
  let progressAt = since;
  for (let movedAt = since; !done; await sleep(200)) {
    for (const child of [...sims, ...servers]) child.assertRunning();
    const now = sims.reduce((sum, simulator) => sum + simulator.welcomed, 0);
    if (now > welcomed) [welcomed, movedAt] = [now, performance.now()];
    if (performance.now() - movedAt > CONNECT_STALL_MS) {
      report.progress(`connect stalled at ${welcomed} links: measuring with those`);
      return welcomed;
    }
    if (performance.now() - progressAt > 5_000) {
      progressAt = performance.now();
      report.progress(`${welcomed} of ${n} links welcomed after ${seconds(since)} s; ${await connectState(sims)}`);
    }
  }
  return n;
}

/**
 * What a stalling connect looks like: links waiting for their welcome and failed attempts per simulator, the
 * presence record's links per replica and how many replica leases are live (a lapsed one drops all its links).
 */
async function connectState(sims: SimulatorProcess[]): Promise<string> {
  const waiting = sims.map((simulator) => simulator.connecting.started - simulator.connecting.welcomed);
  const warnings = sims.map((simulator) => simulator.connecting.linkWarnings);
  const { rows } = await probe.query<{ links: string; live: boolean }>(PRESENCE);
  const held = rows.map((row) => `${row.links}${row.live ? '' : ' (lease lapsed)'}`);
  return `waiting ${waiting.join('/')}, link warnings ${warnings.join('/')}, presence ${held.join('/')}`;
}

/**
 * `count` status reports as fast as the cluster stores them, at most `window` sent and not yet stored; its
 * figures named with `prefix`. Stored is counted exactly: what every device's stored status says it was sent
 * (its k-th report carries k * REPORT_MARKER_UNIT).
 */
async function measureStatusReports(
  out: Reporter,
  prefix: string,
  count: number,
  sims: SimulatorProcess[],
  client: pg.Client,
  cpu: CpuMeter,
): Promise<void> {
  const outcome = await runPacedPhase({
    sims,
    client,
    cpu,
    count,
    // a device's next report waits until its last is stored, so reports are seldom merged into one write
    ahead: Math.min(window, Math.floor(n / 2)),
    command: (total, allowance) => ({ cmd: 'report', total, markerUnit: REPORT_MARKER_UNIT, allowance }),
    exactlyStored: async () =>
      Number((await client.query<{ reports: string }>(STORED_REPORTS, [REPORT_MARKER_UNIT])).rows[0]?.reports ?? 0),
  });
  const { stored, seconds: elapsed, writes } = outcome;
  report.progress(
    `${stored} of ${outcome.total} ${prefix === '' ? '' : 'first '}status reports stored in ${elapsed.toFixed(1)} s (${writes} device writes)`,
  );
  const figure = (name: string, value: number, extra: FigureOptions): void =>
    out.figure(`${prefix}${name}`, value, extra);
  figure('db_writes_per_report', writes / stored, { samples: stored });
  figure('status_stored_per_s', stored / elapsed, {
    unit: 'reports/s',
    samples: stored,
    ...(prefix === '' ? { goal: '>=10000' } : {}),
  });
  figure('pg_commits_per_s', outcome.commits / elapsed, { unit: 'commits/s' });
  figure('pg_rows_written_per_s', outcome.rowsWritten / elapsed, { unit: 'rows/s' });
  figure('replica_cpu_us_per_report', (outcome.cpu.replicas * 1e6) / stored, { unit: 'us' });
  figure('pg_cpu_us_per_report', (outcome.cpu.postgres * 1e6) / stored, { unit: 'us' });
}

/** Creates through `writer`, each timed to its change on a watch of `reader` (and of `writer` itself). */
async function measureWatchDelivery(out: Reporter, writer: string, reader: string): Promise<void> {
  const [a, b] = [writer, reader].map((server) => new OutpostClient({ server, apiKey: adminKey }));
  const controller = new AbortController();
  const onB = watchArrivals(b!, controller.signal);
  const onA = watchArrivals(a!, controller.signal);
  await Promise.all([onA.ready, onB.ready]);
  const across: number[] = [];
  const same: number[] = [];
  const acks: number[] = [];
  for (let i = 0; i < watchWrites; i++) {
    const name = `deviceTypes/bench-${i}`;
    const sent = performance.now();
    await a!.create('', 'deviceTypes', { name, architecture: 'AMD64' });
    acks.push(performance.now() - sent);
    while (!onB.arrivals.has(name) || !onA.arrivals.has(name)) await new Promise((resolve) => setImmediate(resolve));
    across.push(onB.arrivals.get(name)! - sent);
    same.push(onA.arrivals.get(name)! - sent);
  }
  controller.abort();
  const samples = watchWrites;
  out.figure('watch_delivery_across_replicas_p50_ms', percentile(across, 50), { unit: 'ms', samples });
  out.figure('watch_delivery_across_replicas_p99_ms', percentile(across, 99), { unit: 'ms', samples, goal: '<200' });
  out.figure('watch_delivery_same_replica_p99_ms', percentile(same, 99), { unit: 'ms', samples });
  out.figure('create_ack_p50_ms', percentile(acks, 50), { unit: 'ms', samples });
}

/** Times at which each name's change arrived on a watch of deviceTypes through `client`. */
function watchArrivals(
  client: InstanceType<typeof OutpostClient>,
  signal: AbortSignal,
): { arrivals: Map<string, number>; ready: Promise<void> } {
  const arrivals = new Map<string, number>();
  const stream = client.stream<Record<string, unknown>>('POST', '/v1/deviceTypes:watch', {
    body: { type: 'STATELESS' },
    signal,
  });
  const ready = stream.next().then(() => undefined);
  void ready.then(async () => {
    try {
      for await (const response of stream) {
        const now = performance.now();
        for (const match of JSON.stringify(response).matchAll(/"name":"(deviceTypes\/[a-z0-9-]+)"/g)) {
          if (!arrivals.has(match[1]!)) arrivals.set(match[1]!, now);
        }
      }
    } catch {
      // aborted at the end
    }
  });
  return { arrivals, ready };
}

/**
 * cross_replica_command_round_trip_p50_ms / _p99_ms (goal p99 < 50): `POST /v1/{device}:reboot` through replica
 * 2 for devices whose link replica 1 holds, one request at a time, each relayed (control-plane/src/cluster/
 * routing.ts) to replica 1 and over the device's link. The simulated agents have no reboot and answer
 * UNIMPLEMENTED: each answer came from the device. The first requests (the relay link opening) are not counted.
 */
async function measureCommandRoundTrip(out: Reporter, through: string, devices: readonly string[]): Promise<void> {
  const WARM_UP = 10;
  const times: number[] = [];
  for (const [i, device] of devices.entries()) {
    const started = performance.now();
    const res = await fetch(`${through}/v1/${device}:reboot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await res.json()) as { error?: { status?: string } };
    if (body.error?.status !== 'UNIMPLEMENTED') {
      throw new Error(`${device}: not the device's answer (HTTP ${res.status} ${JSON.stringify(body)})`);
    }
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  out.figure('cross_replica_command_round_trip_p50_ms', percentile(times, 50), { unit: 'ms' });
  out.figure('cross_replica_command_round_trip_p99_ms', percentile(times, 99), { unit: 'ms', goal: '<50' });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number, what: string): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what} (last ${String(value)})`);
    await sleep(200);
  }
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}
