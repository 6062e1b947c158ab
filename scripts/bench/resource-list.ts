/**
 * Benchmark: list and watch of the generic resource engine at 100,000 records, end to end.
 *
 * Starts a real control plane in this process (127.0.0.1, any free port, a fresh SQLite file in a temporary
 * folder) with a resource kind of its own (`benchRecords`, names fleets/{fleet}/benchRecords/{benchRecord}),
 * and measures through HTTP with the real REST client (OutpostClient):
 *   1. insert_records_per_s: 100,000 records written through the engine's system API (`put`), 5,000 per
 *      transaction. Each has spec.osVersion "1.0.0".."1.19.0" (an indexed filter path, 20 values) and labels.
 *   2. list latency (p50/p99 ms, page size 100, sequential requests, a fixed mix of first pages and following
 *      pages reached through nextPageToken, 1-10 pages per walk):
 *        list_filtered_*      filter `spec.osVersion = "1.N.0"` (5,000 matches each)      goal p99 < 20 ms
 *        list_paging_info_*   the same with includePagingInfo=true (two COUNTs per page)
 *        list_label_contains_* filter `metadata.labels CONTAINS "zone:zone-N"` (10,000 matches each)
 *   3. watch delivery latency: 1,000 concurrent STATELESS collection watches, each its own HTTP connection
 *      (node:http agent with unlimited sockets behind OutpostClient's `fetch` option), on a parent holding a
 *      few records. Once every watcher has its snapshot, one record is written 50 times (engine put, 100 ms
 *      apart); per watcher and change, the time from just before the write to the moment that watcher's
 *      client parsed the change. watch_delivery_p50/p99/max_ms (goal p99 < 100 ms), missed deliveries, and
 *      the process's open file descriptors with all streams open.
 *
 * Output: one JSON line per figure on stdout ({"bench","figure","value","goal"?,"met"?,...}); progress on stderr.
 * The server and the watch clients share this process (and its event loop), so watch latencies include the
 * clients' own parsing. Takes about one minute; exits 0 when it ran (missed goals show as "met": false).
 *
 * Run from the repository root:  npm run build && npx tsx scripts/bench/resource-list.ts
 */
import { Agent } from 'node:http';
import { z } from 'zod';
import type { OutpostClient, ResourceDefinition } from '@outpost/shared';
import type { ResourceEngine } from '../../control-plane/src/resources/resource-engine.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { openFileDescriptors } from './lib/process-stats.js';
import { createReporter } from './lib/report.js';
import type { Reporter } from './lib/report.js';
import { seededRandom, summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, sleep, withTimeout } from './lib/time.js';

const RECORDS = 100_000;
const INSERT_BATCH = 5_000;
const OS_VERSIONS = 20;
const ZONES = 10;
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

requireBuiltPackages(['shared']);
const shared = await import('@outpost/shared');
const { startBenchServer } = await import('./lib/bench-server.js');

const report = createReporter('resource-list');
exitAfter(TIME_LIMIT_MS, 1, `resource-list: gave up after ${TIME_LIMIT_MS / 1000} s`);

try {
  await withTempDir('outpost-bench-', async (dataDir) => {
    const server = await startBenchServer(dataDir, { resources: [{ def: benchDefinition() }] });
    report.progress(`control plane on ${server.url}, data in ${dataDir}`);
    try {
      insertRecords(server.engine, report);
      await measureLists(server.client(), report);
      await measureWatchDelivery(server.engine, server.client.bind(server), report);
    } finally {
      await withTimeout(server.close(), 15_000, 'closing the server').catch((err: unknown) =>
        report.progress(String(err)),
      );
    }
  });
  const missed = report.missed();
  report.progress(missed.length === 0 ? 'done: every goal met' : `done: goals missed: ${missed.join(', ')}`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`resource-list failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
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
    metadata: { labels: { tier: TIERS[Math.floor(i / 7) % TIERS.length]!, zone: `zone-${i % ZONES}` } },
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
  ];
  for (const scenario of scenarios) {
    await listWalks(client, scenario, LIST_WARMUP_REQUESTS, seededRandom(7));
    const { latencies, firstPages } = await listWalks(client, scenario, LIST_REQUESTS, seededRandom(42));
    const summary = summarize(latencies);
    out.progress(
      `${scenario.figure}: ${summary.count} requests (${firstPages} first pages), ` +
        `p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, max ${summary.max.toFixed(2)} ms`,
    );
    out.figure(`${scenario.figure}_p50_ms`, summary.p50, { unit: 'ms', samples: summary.count });
    out.figure(`${scenario.figure}_p99_ms`, summary.p99, { goal: '<20', unit: 'ms', samples: summary.count });
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
    }
  }
  return { latencies, firstPages };
}

/** A benchmark of wrong answers measures nothing: every page must be full and, with paging info, counted right. */
function checkPage(scenario: ListScenario, answer: Record<string, unknown>, page: number): void {
  const items = answer[PLURAL];
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

interface Watcher {
  /** when this watcher's client parsed each change (index = revision), NaN until then */
  arrivals: Float64Array;
  ready: Promise<void>;
  done: Promise<void>;
  resets: number;
}

async function measureWatchDelivery(
  engine: ResourceEngine,
  clientWith: (fetchImpl?: typeof fetch) => OutpostClient,
  out: Reporter,
): Promise<void> {
  const handle = engine.resource(PLURAL);
  engine.transaction(() => {
    for (let i = 0; i < WATCHED_RECORDS; i++)
      handle.put({ ...benchRecord(WATCHED_PARENT, i * OS_VERSIONS), spec: { osVersion: '1.0.0' } });
    handle.put(probe(0));
  });

  const { nodeHttpFetch } = await import('./lib/node-http-fetch.js');
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const client = clientWith(nodeHttpFetch(agent));
  const stop = new AbortController();
  const watchers: Watcher[] = [];
  try {
    const opening = performance.now();
    for (let wave = 0; wave < WATCHERS / WATCHERS_PER_WAVE; wave++) {
      const fresh = range(WATCHERS_PER_WAVE).map(() => startWatcher(client, stop.signal));
      watchers.push(...fresh);
      await withTimeout(Promise.all(fresh.map((w) => w.ready)), 60_000, `snapshots of watch wave ${wave + 1}`);
    }
    out.progress(
      `${watchers.length} watchers have their snapshot after ${((performance.now() - opening) / 1000).toFixed(1)} s`,
    );
    const fds = openFileDescriptors();
    if (fds !== undefined) out.figure('watch_open_fds', fds, { goal: '<20000' });

    const writtenAt = new Float64Array(CHANGES + 1).fill(Number.NaN);
    const writeMs: number[] = [];
    for (let revision = 1; revision <= CHANGES; revision++) {
      writtenAt[revision] = performance.now();
      handle.put(probe(revision));
      writeMs.push(performance.now() - writtenAt[revision]!);
      await sleep(CHANGE_INTERVAL_MS);
    }
    const allArrived = (): boolean => watchers.every((w) => !Number.isNaN(w.arrivals[CHANGES]!));
    const waitUntil = performance.now() + DELIVERY_GRACE_MS;
    while (!allArrived() && performance.now() < waitUntil) await sleep(20);

    const latencies: number[] = [];
    let missed = 0;
    for (const watcher of watchers) {
      for (let revision = 1; revision <= CHANGES; revision++) {
        const latency = watcher.arrivals[revision]! - writtenAt[revision]!;
        if (Number.isNaN(latency)) missed++;
        else latencies.push(latency);
      }
    }
    const summary = summarize(latencies);
    const resets = watchers.reduce((n, w) => n + w.resets, 0);
    out.progress(
      `watch delivery: ${summary.count} deliveries, ${missed} missed, ${resets} resets; p50 ${summary.p50.toFixed(1)} ms, ` +
        `p99 ${summary.p99.toFixed(1)} ms, max ${summary.max.toFixed(1)} ms (the write itself: p50 ${summarize(writeMs).p50.toFixed(2)} ms)`,
    );
    out.figure('watch_delivery_p50_ms', summary.p50, { unit: 'ms', samples: summary.count });
    out.figure('watch_delivery_p99_ms', summary.p99, { goal: '<100', unit: 'ms', samples: summary.count });
    out.figure('watch_delivery_max_ms', summary.max, { unit: 'ms', samples: summary.count });
    out.figure('watch_missed_deliveries', missed, { goal: '=0', samples: WATCHERS * CHANGES });
  } finally {
    stop.abort();
    await withTimeout(Promise.all(watchers.map((w) => w.done)), 15_000, 'closing the watch streams').catch(
      (err: unknown) => out.progress(String(err)),
    );
    agent.destroy();
  }
}

function probe(revision: number): Doc {
  return { name: PROBE_NAME, displayName: 'watched probe', spec: { osVersion: '1.0.0', revision } };
}

function startWatcher(client: OutpostClient, signal: AbortSignal): Watcher {
  const arrivals = new Float64Array(CHANGES + 1).fill(Number.NaN);
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
        const at = performance.now();
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
