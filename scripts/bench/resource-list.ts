/**
 * Benchmark: list and watch of the generic resource engine at 100,000 records, end to end.
 *
 * Starts a real control plane in this process (127.0.0.1, any free port, a fresh SQLite file in a temporary
 * folder, removed at the end) with a resource kind of its own (`benchRecords`, names
 * fleets/{fleet}/benchRecords/{benchRecord}) and measures through HTTP with the real REST client (OutpostClient):
 *
 *   1. insert_records_per_s: 100,000 records written through the engine's system API (`put`), 5,000 per
 *      transaction. Each has spec.osVersion "1.0.0".."1.19.0" (an indexed filter path, 20 values) and labels.
 *   2. List latency, sequential requests of page size 100: walks of 1-10 pages, each from a first page on through
 *      nextPageToken (a fixed, seeded mix; 50 warm-up requests, then 600 measured):
 *        list_filtered_p50_ms/_p99_ms        filter `spec.osVersion = "1.N.0"` (5,000 matches)  goal p99 < 20 ms
 *        list_paging_info_p50_ms/_p99_ms     the same with includePagingInfo=true              goal p99 < 20 ms
 *        list_label_contains_p50_ms/_p99_ms  `metadata.labels CONTAINS "zone:zone-N"` (10,000)  goal p99 < 20 ms
 *        list_label_rare_p50_ms/_p99_ms      `metadata.labels CONTAINS "rare:yes"` (5 records: one page)  goal p99 < 20 ms
 *      Every page is checked (full, next token, and with paging info the right offset and total).
 *      Per scenario also <figure>_process_cpu_ms_per_request (this process: server and client; PostgreSQL's own
 *      processes not counted): unlike the latencies, barely affected by other load on the machine.
 *   3. Watch fan-out: 1,000 concurrent STATELESS collection watches, each its own HTTP connection, on a parent
 *      holding 11 records. The watch clients run in a child process (this script again, role --watch-clients;
 *      OutpostClient over a node:http agent with unlimited sockets), so their parsing does not run on the
 *      server's event loop. Once every watcher has its snapshot, one record is written 50 times (engine put,
 *      100 ms apart); per watcher and change, the time from just before the write to the moment that watcher's
 *      client parsed the change, on the machine's monotonic clock:
 *        watch_delivery_p50_ms/_p99_ms/_max_ms (goal p99 < 100 ms), watch_missed_deliveries (goal 0),
 *        watch_open_s (opening all watchers, 100 at a time), watch_server_fds/watch_client_fds (goal < 20,000),
 *        watch_server_cpu_ms_per_change (server process CPU time per change: unlike latencies, barely
 *        affected by other load on the machine, so the figure to compare engine changes by).
 *   host_load_avg_1m_start/_end tell how busy the machine was: latencies on a shared machine
 *   vary from run to run.
 *
 * Output: one JSON line per figure on stdout, e.g.
 *   {"bench":"resource-list","figure":"list_filtered_p99_ms","value":3.2,"goal":"<20","met":true,"unit":"ms","samples":600}
 * and human progress on stderr. Takes 1-2 minutes, gives up after 10; exits 0 when it ran (a missed goal shows as
 * "met":false), 1 when it could not run.
 *
 * Run from the repository root (tsx resolves @outpost/shared to shared/dist):
 *   npm run build && npx tsx scripts/bench/resource-list.ts
 * Options: `--database postgres://…` keeps the records in that (empty) PostgreSQL database; `--postgres` starts a
 * throwaway PostgreSQL cluster for the run (initdb into a temporary folder, loopback, fsync on as SQLite's
 * synchronous=FULL; needs Debian's postgresql package) and uses it. Every figure then carries "store".
 */
import { setMaxListeners } from 'node:events';
import { Agent } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { z } from 'zod';
import type { OutpostClient, ResourceDefinition } from '@outpost/shared';
import type { ResourceEngine } from '../../control-plane/dist/resources/resource-engine.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { BENCH_STORE_FLAGS, benchStoreOf, checkStoreFlags } from './lib/bench-store.js';
import type { BenchStoreFlags } from './lib/bench-store.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { openFileDescriptors } from './lib/process-stats.js';
import { createReporter } from './lib/report.js';
import type { Reporter } from './lib/report.js';
import { seededRandom, summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, monotonicMs, sleep, withTimeout } from './lib/time.js';

const RECORDS = 100_000;
const INSERT_BATCH = 5_000;
const OS_VERSIONS = 20;
const ZONES = 10;
/** a label only a handful of records carry: every RARE_EVERY-th from RARE_FIRST on */
const RARE_EVERY = 20_000;
const RARE_FIRST = 7;
const TIERS = ['gold', 'silver', 'bronze', 'iron'] as const;
const PAGE_SIZE = 100;
const LIST_WARMUP_REQUESTS = 50;
const LIST_REQUESTS = 600;
const MAX_PAGES_PER_WALK = 10;
const WATCHERS = 1_000;
const WATCHERS_PER_WAVE = 100;
const WATCHED_RECORDS = 10;
const CHANGES = 50;
const CHANGE_INTERVAL_MS = 100;
const DELIVERY_GRACE_MS = 10_000;
const TIME_LIMIT_MS = 10 * 60_000;

const PLURAL = 'benchRecords';
const SINGULAR = 'benchRecord';
const LISTED_PARENT = 'fleets/main';
const WATCHED_PARENT = 'fleets/watched';
const WATCH_FILTER = 'spec.osVersion = "1.0.0"';
const PROBE_NAME = `${WATCHED_PARENT}/${PLURAL}/probe`;

type Doc = Record<string, unknown>;

/** argv[2] of the child process that runs the watch clients (see watchClients) */
const WATCH_CLIENTS_ROLE = '--watch-clients';
const isWatchClients = process.argv[2] === WATCH_CLIENTS_ROLE;

const flags = isWatchClients ? undefined : commandLine();
if (!isWatchClients) requireBuiltPackages(['shared', 'control-plane']);
const shared = await import('@outpost/shared');
exitAfter(TIME_LIMIT_MS, 1, `resource-list: gave up after ${TIME_LIMIT_MS / 1000} s`);
if (flags === undefined) await watchClients();
else await benchmark(flags);

function commandLine(): BenchStoreFlags {
  const { values, fail } = parseBenchFlags({
    script: 'resource-list.ts',
    summary:
      'List and watch of the resource engine at 100,000 records, end to end through HTTP: list latency per filter, ' +
      'watch delivery to 1,000 watchers. One JSON line per figure on stdout, progress on stderr.',
    flags: BENCH_STORE_FLAGS,
  });
  checkStoreFlags(values, fail);
  return values;
}

async function benchmark(flags: BenchStoreFlags): Promise<void> {
  const { startBenchServer } = await import('./lib/bench-server.js');
  const { kind: store, freshDatabase, stop } = await benchStoreOf(flags);
  const database = freshDatabase();
  const report = createReporter('resource-list', { store });
  try {
    await withTempDir('outpost-bench-', async (dataDir) => {
      const server = await startBenchServer(
        dataDir,
        { resources: [{ def: benchDefinition() }] },
        database !== undefined ? { database } : {},
      );
      report.progress(`control plane on ${server.url}, data in ${dataDir}, resources in ${store}`);
      reportHostLoad(report, 'start');
      try {
        insertRecords(server.engine, report);
        await measureLists(server.client(), report);
        await measureWatchDelivery(server.engine, server, report);
      } finally {
        await withTimeout(server.close(), 15_000, 'closing the server').catch((err: unknown) =>
          report.progress(String(err)),
        );
      }
    });
    reportHostLoad(report, 'end');
    stop();
    const missed = report.missed();
    report.progress(missed.length === 0 ? 'done: every goal met' : `done: goals missed: ${missed.join(', ')}`);
    process.exit(0);
  } catch (err) {
    stop();
    process.stderr.write(`resource-list failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}

/** Other work on the machine shows in the latencies (not in CPU times): say how busy it was. */
function reportHostLoad(out: Reporter, when: 'start' | 'end'): void {
  const [oneMinute = 0] = loadavg();
  out.progress(`host: ${availableParallelism()} CPUs, load average (1 min) ${oneMinute.toFixed(2)}`);
  out.figure(`host_load_avg_1m_${when}`, oneMinute, { unit: `runnable tasks on ${availableParallelism()} CPUs` });
}

// ---- the resource kind --------------------------------------------------------------------------------

function benchDefinition(): ResourceDefinition {
  const schema = z.object({
    name: z.string(),
    metadata: shared.MetaSchema.optional(),
    displayName: z.string().optional(),
    spec: z
      .object({
        osVersion: z.string().optional(),
        channel: z.string().optional(),
        hostname: z.string().optional(),
        revision: z.number().int().optional(),
      })
      .optional(),
    status: z
      .object({
        state: z.enum(['ONLINE', 'OFFLINE']).optional(),
        lastSeenTime: z.string().optional(),
        uptimeSeconds: z.number().int().optional(),
      })
      .optional(),
  });
  return {
    kind: 'BenchRecord',
    singular: SINGULAR,
    plural: PLURAL,
    service: 'bench.outpost',
    patterns: [
      new shared.NamePattern(`fleets/{fleet}/${PLURAL}/{${SINGULAR}}`, {
        fleet: shared.ID_RULES.device,
        [SINGULAR]: shared.ID_RULES.device,
      }),
    ],
    idRule: shared.ID_RULES.device,
    schema,
    filterSchema: {
      fields: [
        ...shared.META_FILTER_FIELDS,
        { path: 'displayName', type: 'string' },
        { path: 'spec.osVersion', type: 'string' },
        { path: 'spec.channel', type: 'string' },
        { path: 'spec.revision', type: 'int' },
        { path: 'status.state', type: 'enum', enumValues: ['ONLINE', 'OFFLINE'] },
      ],
    },
    outputOnly: ['status'],
    views: { BASIC: ['displayName', 'spec.osVersion'] },
  };
}

function benchRecord(parent: string, i: number): Doc {
  return {
    name: `${parent}/${PLURAL}/r-${String(i).padStart(6, '0')}`,
    displayName: `Bench record ${i}`,
    metadata: {
      labels: {
        tier: TIERS[Math.floor(i / 7) % TIERS.length]!,
        zone: `zone-${i % ZONES}`,
        ...(i % RARE_EVERY === RARE_FIRST ? { rare: 'yes' } : {}),
      },
    },
    spec: {
      osVersion: `1.${i % OS_VERSIONS}.0`,
      channel: i % 3 === 0 ? 'beta' : 'stable',
      hostname: `host-${i}.bench.example`,
      revision: 0,
    },
    status: {
      state: i % 7 === 0 ? 'OFFLINE' : 'ONLINE',
      lastSeenTime: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      uptimeSeconds: i * 37,
    },
  };
}

// ---- 1. inserts ---------------------------------------------------------------------------------------

function insertRecords(engine: ResourceEngine, out: Reporter): void {
  const handle = engine.resource(PLURAL);
  const started = performance.now();
  for (let first = 0; first < RECORDS; first += INSERT_BATCH) {
    engine.transaction(() => {
      for (let i = first; i < Math.min(first + INSERT_BATCH, RECORDS); i++) handle.put(benchRecord(LISTED_PARENT, i));
    });
    if ((first / INSERT_BATCH) % 5 === 4) out.progress(`inserted ${first + INSERT_BATCH} records`);
  }
  const seconds = (performance.now() - started) / 1000;
  out.figure('insert_records_per_s', RECORDS / seconds, { unit: 'records/s', samples: RECORDS });
}

// ---- 2. lists -----------------------------------------------------------------------------------------

interface ListScenario {
  figure: string;
  filters: string[];
  includePagingInfo: boolean;
  /** records each filter matches, checked against the answers */
  matches: number;
}

async function measureLists(client: OutpostClient, out: Reporter): Promise<void> {
  const scenarios: ListScenario[] = [
    {
      figure: 'list_filtered',
      filters: range(OS_VERSIONS).map((v) => `spec.osVersion = "1.${v}.0"`),
      includePagingInfo: false,
      matches: RECORDS / OS_VERSIONS,
    },
    {
      figure: 'list_paging_info',
      filters: range(OS_VERSIONS).map((v) => `spec.osVersion = "1.${v}.0"`),
      includePagingInfo: true,
      matches: RECORDS / OS_VERSIONS,
    },
    {
      figure: 'list_label_contains',
      filters: range(ZONES).map((z) => `metadata.labels CONTAINS "zone:zone-${z}"`),
      includePagingInfo: false,
      matches: RECORDS / ZONES,
    },
    {
      figure: 'list_label_rare',
      filters: ['metadata.labels CONTAINS "rare:yes"'],
      includePagingInfo: false,
      matches: RECORDS / RARE_EVERY,
    },
  ];
  for (const scenario of scenarios) {
    await listWalks(client, scenario, LIST_WARMUP_REQUESTS, seededRandom(7));
    const cpuBefore = process.cpuUsage();
    const { latencies, firstPages } = await listWalks(client, scenario, LIST_REQUESTS, seededRandom(42));
    const cpu = process.cpuUsage(cpuBefore);
    const summary = summarize(latencies);
    out.progress(
      `${scenario.figure}: ${summary.count} requests (${firstPages} first pages), ` +
        `p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, max ${summary.max.toFixed(2)} ms`,
    );
    out.figure(`${scenario.figure}_p50_ms`, summary.p50, { unit: 'ms', samples: summary.count });
    out.figure(`${scenario.figure}_p99_ms`, summary.p99, { goal: '<20', unit: 'ms', samples: summary.count });
    // CPU per request barely depends on other load on the machine, unlike the latencies
    out.figure(`${scenario.figure}_process_cpu_ms_per_request`, (cpu.user + cpu.system) / 1000 / summary.count, {
      unit: 'ms',
      samples: summary.count,
    });
  }
}

/** Sequential list requests: walks of 1..MAX_PAGES_PER_WALK pages, each from a first page on through nextPageToken. */
async function listWalks(
  client: OutpostClient,
  scenario: ListScenario,
  requests: number,
  random: () => number,
): Promise<{ latencies: number[]; firstPages: number }> {
  const latencies: number[] = [];
  let firstPages = 0;
  while (latencies.length < requests) {
    const filter = scenario.filters[Math.floor(random() * scenario.filters.length)]!;
    const pages = 1 + Math.floor(random() * MAX_PAGES_PER_WALK);
    let pageToken: string | undefined;
    for (let page = 0; page < pages && latencies.length < requests; page++) {
      const started = performance.now();
      const answer = await client.list<Doc>(LISTED_PARENT, PLURAL, {
        filter,
        pageSize: PAGE_SIZE,
        pageToken,
        includePagingInfo: scenario.includePagingInfo || undefined,
      });
      latencies.push(performance.now() - started);
      if (page === 0) firstPages++;
      checkPage(scenario, answer, page);
      pageToken = answer.nextPageToken;
      if (!pageToken) break; // the last page of a filter with fewer matches than a walk's pages
    }
  }
  return { latencies, firstPages };
}

/** A benchmark of wrong answers measures nothing: every page must be full and, with paging info, counted right. */
function checkPage(scenario: ListScenario, answer: Record<string, unknown>, page: number): void {
  const items = answer[PLURAL];
  if (scenario.matches <= PAGE_SIZE) {
    if (!Array.isArray(items) || items.length !== scenario.matches || (answer['nextPageToken'] ?? '') !== '') {
      throw new Error(`${scenario.figure}: the page does not hold all ${scenario.matches} matches alone`);
    }
    return;
  }
  if (
    !Array.isArray(items) ||
    items.length !== PAGE_SIZE ||
    typeof answer['nextPageToken'] !== 'string' ||
    answer['nextPageToken'] === ''
  ) {
    throw new Error(`${scenario.figure}: page ${page} is not a full page with a next page token`);
  }
  if (scenario.includePagingInfo) {
    if (answer['totalResultsCount'] !== scenario.matches || answer['currentOffset'] !== page * PAGE_SIZE) {
      throw new Error(
        `${scenario.figure}: page ${page} reports offset ${String(answer['currentOffset'])} of ` +
          `${String(answer['totalResultsCount'])}, expected ${page * PAGE_SIZE} of ${scenario.matches}`,
      );
    }
  }
}

// ---- 3. watch delivery --------------------------------------------------------------------------------
//
// The watch clients run in a child process (this script, role WATCH_CLIENTS_ROLE): remote clients do not share
// the server's event loop, and their own parsing would otherwise count as the server's delivery time. Both
// processes take times on the system's monotonic clock.

interface OpenCommand {
  type: 'open';
  url: string;
  apiKey: string;
}
interface ReadyReport {
  type: 'ready';
  openSeconds: number;
  fds: number | undefined;
}
interface FinishCommand {
  type: 'finish';
}
interface ArrivalsReport {
  type: 'arrivals';
  /** watcher w parsed change r at arrivals[w * (CHANGES + 1) + r] (monotonic ms), NaN when it never did */
  arrivals: Float64Array;
  resets: number;
}

/** A type guard for one kind of IPC message (a declaration: the roles run before later consts initialize). */
function isMessage<T extends { type: string }>(type: T['type']): (message: unknown) => message is T {
  return (message: unknown): message is T => isRecord(message) && message['type'] === type;
}

async function measureWatchDelivery(
  engine: ResourceEngine,
  server: { url: string; apiKey: string },
  out: Reporter,
): Promise<void> {
  const { forkSelf, receive, send, awaitExit } = await import('./lib/self-fork.js');
  const handle = engine.resource(PLURAL);
  engine.transaction(() => {
    for (let i = 0; i < WATCHED_RECORDS; i++) {
      handle.put({ ...benchRecord(WATCHED_PARENT, i * OS_VERSIONS), spec: { osVersion: '1.0.0' } });
    }
    handle.put(probe(0));
  });

  const clients = forkSelf(import.meta.url, WATCH_CLIENTS_ROLE);
  let finished = false;
  try {
    await send(clients, { type: 'open', url: server.url, apiKey: server.apiKey } satisfies OpenCommand);
    const ready = await receive(clients, isMessage<ReadyReport>('ready'), 300_000, "the watchers' snapshots");
    out.progress(`${WATCHERS} watchers have their snapshot after ${ready.openSeconds.toFixed(1)} s`);
    out.figure('watch_open_s', ready.openSeconds, { unit: 's', samples: WATCHERS });
    const serverFds = openFileDescriptors();
    if (serverFds !== undefined) out.figure('watch_server_fds', serverFds, { goal: '<20000' });
    if (ready.fds !== undefined) out.figure('watch_client_fds', ready.fds, { goal: '<20000' });

    const writtenAt = new Float64Array(CHANGES + 1).fill(Number.NaN);
    const writeMs: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (let revision = 1; revision <= CHANGES; revision++) {
      const before = monotonicMs();
      writtenAt[revision] = before;
      handle.put(probe(revision));
      writeMs.push(monotonicMs() - before);
      await sleep(CHANGE_INTERVAL_MS);
    }
    await sleep(Math.max(0, 1000 - CHANGE_INTERVAL_MS)); // the last change's deliveries, before CPU is read
    const cpu = process.cpuUsage(cpuBefore);
    await send(clients, { type: 'finish' } satisfies FinishCommand);
    const { arrivals, resets } = await receive(
      clients,
      isMessage<ArrivalsReport>('arrivals'),
      DELIVERY_GRACE_MS + 30_000,
      'the arrival times',
    );
    finished = true;

    const latencies: number[] = [];
    let missed = 0;
    for (let watcher = 0; watcher < WATCHERS; watcher++) {
      for (let revision = 1; revision <= CHANGES; revision++) {
        const latency = arrivals[watcher * (CHANGES + 1) + revision]! - writtenAt[revision]!;
        if (Number.isNaN(latency)) missed++;
        else latencies.push(latency);
      }
    }
    const summary = summarize(latencies);
    out.progress(
      `watch delivery: ${summary.count} deliveries, ${missed} missed, ${resets} resets; p50 ${summary.p50.toFixed(1)} ms, ` +
        `p99 ${summary.p99.toFixed(1)} ms, max ${summary.max.toFixed(1)} ms (the write itself: p50 ${summarize(writeMs).p50.toFixed(2)} ms)`,
    );
    out.figure('watch_delivery_p50_ms', summary.p50, { unit: 'ms', samples: summary.count });
    out.figure('watch_delivery_p99_ms', summary.p99, { goal: '<100', unit: 'ms', samples: summary.count });
    out.figure('watch_delivery_max_ms', summary.max, { unit: 'ms', samples: summary.count });
    out.figure('watch_missed_deliveries', missed, { goal: '=0', samples: WATCHERS * CHANGES });
    // CPU time barely depends on other load on the machine, unlike the latencies: the figure to compare engine changes by
    out.figure('watch_server_cpu_ms_per_change', (cpu.user + cpu.system) / 1000 / CHANGES, {
      unit: 'ms',
      samples: CHANGES,
    });
  } finally {
    if (!finished) clients.kill();
    if ((await awaitExit(clients, 20_000)) !== 0 && finished) out.progress('the watch clients did not end cleanly');
  }
}

function probe(revision: number): Doc {
  return { name: PROBE_NAME, displayName: 'watched probe', spec: { osVersion: '1.0.0', revision } };
}

/** The child process: opens the watchers, records when each parsed each change, reports, and ends. */
async function watchClients(): Promise<void> {
  const { receive, send } = await import('./lib/self-fork.js');
  const { nodeHttpFetch } = await import('./lib/node-http-fetch.js');
  process.once('disconnect', () => process.exit(1)); // the benchmark went away
  const open = await receive(process, isMessage<OpenCommand>('open'), 60_000, 'the open command');
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const client = new shared.OutpostClient({
    server: open.url,
    apiKey: open.apiKey,
    fetch: nodeHttpFetch(agent),
    userAgent: 'outpost-bench',
  });
  const stop = new AbortController();
  setMaxListeners(WATCHERS + 10, stop.signal); // every stream listens for the one stop signal
  const arrivals = new Float64Array(WATCHERS * (CHANGES + 1)).fill(Number.NaN);
  const watchers: Watcher[] = [];

  const opening = monotonicMs();
  for (let wave = 0; wave < WATCHERS / WATCHERS_PER_WAVE; wave++) {
    const fresh = range(WATCHERS_PER_WAVE).map((i) =>
      startWatcher(
        client,
        stop.signal,
        arrivals.subarray((watchers.length + i) * (CHANGES + 1), (watchers.length + i + 1) * (CHANGES + 1)),
      ),
    );
    watchers.push(...fresh);
    await withTimeout(Promise.all(fresh.map((w) => w.ready)), 60_000, `snapshots of watch wave ${wave + 1}`);
  }
  const openSeconds = (monotonicMs() - opening) / 1000;
  await send(process, { type: 'ready', openSeconds, fds: openFileDescriptors() } satisfies ReadyReport);

  await receive(process, isMessage<FinishCommand>('finish'), TIME_LIMIT_MS, 'the finish command');
  const lastRevisionArrived = (w: Watcher): boolean => !Number.isNaN(w.arrivals[CHANGES]!);
  const giveUpAt = monotonicMs() + DELIVERY_GRACE_MS;
  while (!watchers.every(lastRevisionArrived) && monotonicMs() < giveUpAt) await sleep(20);
  const resets = watchers.reduce((n, w) => n + w.resets, 0);
  await send(process, { type: 'arrivals', arrivals, resets } satisfies ArrivalsReport);

  stop.abort();
  await withTimeout(Promise.all(watchers.map((w) => w.done)), 15_000, 'closing the watch streams').catch(() => {});
  agent.destroy();
  process.exit(0);
}

interface Watcher {
  /** when this watcher's client parsed each change (index = revision), NaN until then */
  arrivals: Float64Array;
  ready: Promise<void>;
  done: Promise<void>;
  resets: number;
}

function startWatcher(client: OutpostClient, signal: AbortSignal, arrivals: Float64Array): Watcher {
  let markReady = (): void => {};
  const snapshotTaken = new Promise<void>((resolve) => (markReady = resolve));
  const watcher: Watcher = { arrivals, ready: snapshotTaken, done: Promise.resolve(), resets: 0 };
  const stream = client.watch<unknown>(
    `/v1/${WATCHED_PARENT}/${PLURAL}:watch`,
    { type: 'STATELESS', filter: WATCH_FILTER },
    signal,
  );
  watcher.done = (async () => {
    try {
      for await (const message of stream) {
        const at = monotonicMs();
        if (!isRecord(message)) continue;
        if (typeof message['snapshotSize'] === 'number' && message['snapshotSize'] >= 0) markReady();
        if (message['isSoftReset'] === true || message['isHardReset'] === true) watcher.resets++;
        for (const revision of revisionsIn(message)) {
          if (revision >= 1 && revision <= CHANGES && Number.isNaN(arrivals[revision]!)) arrivals[revision] = at;
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  })();
  watcher.ready = Promise.race([
    snapshotTaken,
    watcher.done.then(() => {
      throw new Error('a watch stream ended before its snapshot');
    }),
  ]);
  watcher.done = watcher.done.catch(() => {}); // its failure surfaces through `ready` or as missed deliveries
  return watcher;
}

/** The probe's spec.revision of every Current change in one watch message. */
function revisionsIn(message: Record<string, unknown>): number[] {
  const changes = message[shared.changesKey({ singular: SINGULAR })];
  if (!Array.isArray(changes)) return [];
  const revisions: number[] = [];
  for (const change of changes) {
    const current = isRecord(change) ? change['current'] : undefined;
    const doc = isRecord(current) ? current[SINGULAR] : undefined;
    if (!isRecord(doc) || doc['name'] !== PROBE_NAME) continue;
    const spec = doc['spec'];
    const revision = isRecord(spec) ? spec['revision'] : undefined;
    if (typeof revision === 'number') revisions.push(revision);
  }
  return revisions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
