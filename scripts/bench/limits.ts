/**
 * Benchmark: the limits service (spec 001) at 1,000 organizations × 10 projects × 3 regions.
 *
 * Starts a real control plane in this process (127.0.0.1, any free port, a fresh SQLite file in a temporary
 * folder). Setup goes through the engine's user operations (the rules run as for a REST call, without HTTP):
 * 1,000 organizations, then 10 projects in each, every project in regions r1, r2, r3. Each gets its default
 * plan at creation (organization-small: 100,000 devices per region; project-small: 1,000), which gives 10,000
 * project accepted plans, 30,000 Limits and 3,000 organization LimitPools. Like a bulk import, it creates 50
 * organizations with their projects per transaction (one commit each; on PostgreSQL their writes go out as
 * multi-row statements), each entity still through its own create and rules.
 * Figures, through HTTP with the real REST client (OutpostClient):
 *   1. setup_entities_per_s: organizations and projects created per second (each with its plan, pools, limits;
 *      50 organizations with their projects per transaction).
 *   2. plan_change_ms: a PUT of the service-level plan `services/devices.outpost/plans/project-small`
 *      (1,000 → 1,500 devices): approving the change (the capacity check of every pool it raises) and
 *      recomputing every dependent assignment, pool and limit (10,000 + 10,000 assignment documents, 30,000
 *      limits, 3,000 + 3 pools) in one transaction. The median of five such changes (1,500, 1,000, 1,500,
 *      1,000, 1,500 devices), each recomputing everything, each after an untimed checkpoint of what the one
 *      before wrote (a plan change on a server not still copying the last one into the database file).
 *      Goal < 2,000 ms.
 *      plan_change_first_ms is the first of them (code paths not yet optimised by the JIT, right after the
 *      setup), plan_change_max_ms the slowest.
 *      organization_plan_change_ms: the same for `organization-small` (1,000 organization assignments).
 *   3. plan assignment requests handled per second, from 32 concurrent clients in a child process (this script
 *      again, role --request-clients: a load generator in the server's process would take the server's turns),
 *      after an untimed checkpoint of what the plan changes wrote, so the checkpointer is not still copying it:
 *        requests_auto_approved_per_s  2,000 requests that lower a project's plan (approved and applied at once)
 *        requests_pending_per_s        2,000 requests that raise it (stored PENDING for the approver)
 *        requests_accepted_per_s       the approver accepting those 2,000 (applied, capacity-checked)
 *        plan_assignment_requests_per_s all 6,000 calls over their total time. Goal >= 500/s.
 * Afterwards it checks a sample of limits and pools against what the plans say, and fails if they disagree.
 *
 * Each timed figure also gets a `*_cpu_ms` line: the CPU time (user + system) this process spent meanwhile (the
 * server's, and for the plan changes also the one client's), so runs on a loaded machine can be compared.
 *
 * Every HTTP write is a transaction of its own (undone alone if it fails), committed with the server's durability
 * (synchronous=FULL: an fsync per commit); writes that arrive together share one commit (group commit,
 * ResourceEngine.batch), and each is answered only once that commit is durable. `--synchronous NORMAL` runs the
 * same with that pragma instead, to show what the disk costs.
 *
 * `--database postgres://…` keeps the resources in that (empty) PostgreSQL database; `--postgres` starts a
 * throwaway PostgreSQL cluster for the run (initdb into a temporary folder, loopback, fsync on as SQLite's
 * synchronous=FULL; needs Debian's postgresql package) and uses it. Every figure then carries "store"; the
 * untimed checkpoints are PostgreSQL's CHECKPOINT.
 *
 * To measure the requests again and again without the setup (on PostgreSQL about 100 s): `--setup-only` builds the
 * hierarchy in the `--database` given and stops; `--requests-only` skips the setup and the plan changes, on a
 * database holding that hierarchy and nothing since (a copy: `CREATE DATABASE copy TEMPLATE set_up`), and checks
 * the values the plans have before any change.
 *
 * Output: one JSON line per figure on stdout ({"bench","store","figure","value","goal"?,"met"?,...}); progress on
 * stderr. Run from the repository root:
 *   npm run build && npx tsx scripts/bench/limits.ts [--synchronous NORMAL] [--postgres | --database URL]
 *     [--setup-only | --requests-only]
 */
import { Agent } from 'node:http';
import type { OutpostClient } from '@outpost/shared';
import type { ResourceEngine } from '../../control-plane/dist/resources/resource-engine.js';
import type { SqliteDatabase } from '../../control-plane/dist/resources/storage/open-storage.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { BENCH_STORE_FLAGS, benchStoreOf, checkStoreFlags } from './lib/bench-store.js';
import type { BenchStoreFlags } from './lib/bench-store.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { createReporter, type Reporter } from './lib/report.js';
import { percentile } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, withTimeout } from './lib/time.js';

const ORGANIZATIONS = 1_000;
const PROJECTS_PER_ORGANIZATION = 10;
const REGIONS = ['r1', 'r2', 'r3'] as const;
const REQUESTS = 2_000;
/** Organizations (with their projects) created per setup transaction. */
const ORGANIZATIONS_PER_TRANSACTION = 50;
const CONCURRENCY = 32;
const TIME_LIMIT_MS = 15 * 60_000;
/** The project plan's devices value, changed this many times (it starts at 1,000 and ends at 1,500). */
const PLAN_CHANGES = [1_500, 1_000, 1_500, 1_000, 1_500] as const;

const SERVICE = 'services/devices.outpost';
const DEVICES = `${SERVICE}/resources/devices`;
const PROJECT_PLAN = `${SERVICE}/plans/project-small`;
const ORGANIZATION_PLAN = `${SERVICE}/plans/organization-small`;
const LOWER_PLAN = `${SERVICE}/plans/project-lower`;
const HIGHER_PLAN = `${SERVICE}/plans/project-higher`;

/** argv[2] of the child process that runs the request clients (see requestClients) */
const REQUEST_CLIENTS_ROLE = '--request-clients';
const isRequestClients = process.argv[2] === REQUEST_CLIENTS_ROLE;

const org = (o: number): string => `organizations/org-${o}`;
const project = (o: number, p: number): string => `projects/prj-${o}-${p}`;
const limitOf = (name: string, region: string): string => `${name}/limits/${region}/devices.outpost/devices`;
const poolOf = (name: string, region: string): string => `${name}/limitPools/${region}/devices.outpost/devices`;

const options = isRequestClients ? undefined : commandLine();
exitAfter(TIME_LIMIT_MS, 1, `limits: gave up after ${TIME_LIMIT_MS / 1000} s`);
if (options === undefined) await requestClients();
else await benchmark(options);

interface Options extends BenchStoreFlags {
  synchronous?: 'NORMAL' | 'FULL' | undefined;
  setupOnly: boolean;
  requestsOnly: boolean;
}

function commandLine(): Options {
  const { values, fail } = parseBenchFlags({
    script: 'limits.ts',
    summary:
      'The limits service at 1,000 organizations x 10 projects x 3 regions: setup rate, plan changes, plan ' +
      'assignment requests per second. One JSON line per figure on stdout, progress on stderr.',
    flags: {
      synchronous: {
        value: 'NORMAL|FULL',
        help: "SQLite's synchronous pragma for the run, to show what the disk costs; default: the server's (FULL)",
      },
      ...BENCH_STORE_FLAGS,
      'setup-only': { help: 'only build the hierarchy in the --database given, and stop' },
      'requests-only': {
        help: 'skip the setup and the plan changes, on a --database holding the hierarchy --setup-only built',
      },
    },
  });
  checkStoreFlags(values, fail);
  const synchronous = values.synchronous?.toUpperCase();
  if (synchronous !== undefined && synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    return fail(`--synchronous takes NORMAL or FULL, not "${values.synchronous}"`);
  }
  if (synchronous !== undefined && (values.postgres || values.database !== undefined)) {
    fail('--synchronous is a SQLite setting');
  }
  if ((values['setup-only'] || values['requests-only']) && values.database === undefined) {
    fail('--setup-only and --requests-only need the database to keep: --database URL');
  }
  return {
    synchronous,
    postgres: values.postgres,
    database: values.database,
    setupOnly: values['setup-only'],
    requestsOnly: values['requests-only'],
  };
}

async function benchmark(options: Options): Promise<void> {
  const synchronous = options.synchronous;
  requireBuiltPackages(['shared', 'control-plane']);
  const { startBenchServer } = await import('./lib/bench-server.js');
  const { nodeHttpFetch } = await import('./lib/node-http-fetch.js');
  const store = await benchStoreOf(options);
  const report = createReporter('limits', { store: store.kind });
  try {
    await withTempDir('outpost-bench-limits-', async (dataDir) => {
      const database = store.freshDatabase();
      const server = await startBenchServer(dataDir, {}, database !== undefined ? { database } : {});
      if (store.kind === 'sqlite') {
        const db = await sqliteDatabaseOf(server.engine);
        if (synchronous) db.pragma(`synchronous = ${synchronous}`);
        const durability = String(db.pragma('synchronous', { simple: true }));
        report.progress(
          `control plane on ${server.url}, data in ${dataDir}, synchronous=${durability} (2 = FULL, 1 = NORMAL)`,
        );
      } else report.progress(`control plane on ${server.url}, resources in PostgreSQL`);
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      try {
        const requestsOnly = options.requestsOnly;
        if (!requestsOnly) buildHierarchy(server.engine, report);
        if (options.setupOnly) return; // the database keeps the hierarchy
        const client = server.client(nodeHttpFetch(agent));
        if (!requestsOnly) await measurePlanChanges(client, server.engine, report);
        report.progress(`write-ahead log checkpointed in ${(await checkpoint(server.engine)).toFixed(0)} ms`);
        await measureRequests(client, server, report);
        await verify(client, requestsOnly);
      } finally {
        agent.destroy();
        await withTimeout(server.close(), 15_000, 'closing the server').catch((err: unknown) =>
          report.progress(String(err)),
        );
      }
    });
    store.stop();
    const missed = report.missed();
    report.progress(missed.length === 0 ? 'done: every goal met' : `done: goals missed: ${missed.join(', ')}`);
    process.exit(0);
  } catch (err) {
    store.stop();
    process.stderr.write(`limits failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}

// ---- 1. the hierarchy ---------------------------------------------------------------------------------

function buildHierarchy(engine: ResourceEngine, out: Reporter): void {
  const organizations = engine.resource('organizations');
  const projects = engine.resource('projects');
  const started = performance.now();
  const cpu = process.cpuUsage();
  // a bulk import: many organizations with their projects per transaction (one commit, and on PostgreSQL its
  // writes go out as multi-row statements), each created through the user operation and its rules as alone
  for (let first = 0; first < ORGANIZATIONS; first += ORGANIZATIONS_PER_TRANSACTION) {
    engine.transaction(() => {
      for (let o = first; o < Math.min(first + ORGANIZATIONS_PER_TRANSACTION, ORGANIZATIONS); o++) {
        organizations.create({ parent: '', resource: { name: org(o), displayName: `Organization ${o}` } });
        for (let p = 0; p < PROJECTS_PER_ORGANIZATION; p++) {
          projects.create({
            parent: '',
            resource: { name: project(o, p), parentOrganization: org(o), regions: [...REGIONS] },
          });
        }
      }
    });
    out.progress(
      `created ${Math.min(first + ORGANIZATIONS_PER_TRANSACTION, ORGANIZATIONS)} organizations with their projects`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const entities = ORGANIZATIONS * (1 + PROJECTS_PER_ORGANIZATION);
  out.figure('setup_entities_per_s', entities / seconds, { unit: 'entities/s', samples: entities });
  out.figure('setup_cpu_ms', cpuMs(cpu), { unit: 'ms' });
  const limits = engine.resource('limits').table.count([]);
  const pools = engine.resource('limitPools').table.count([]);
  out.progress(`hierarchy: ${entities} entities, ${limits} limits, ${pools} pools in ${seconds.toFixed(1)} s`);
}

// ---- 2. plan changes ----------------------------------------------------------------------------------

async function measurePlanChanges(client: OutpostClient, engine: ResourceEngine, out: Reporter): Promise<void> {
  const change = async (plan: string, value: number): Promise<{ ms: number; cpuMs: number }> => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await client.update(
      { name: plan, resourceLimits: [{ resource: DEVICES, value }] },
      { updateMask: 'resourceLimits' },
    );
    return { ms: performance.now() - started, cpuMs: cpuMs(cpu) };
  };
  const changes: { ms: number; cpuMs: number }[] = [];
  for (const [i, value] of PLAN_CHANGES.entries()) {
    const checkpointMs = await checkpoint(engine);
    changes.push(await change(PROJECT_PLAN, value));
    out.progress(
      `plan change ${i + 1}/${PLAN_CHANGES.length} (to ${value} devices): ${changes[i]!.ms.toFixed(0)} ms ` +
        `(after a checkpoint of ${checkpointMs.toFixed(0)} ms)`,
    );
  }
  const times = changes.map((c) => c.ms);
  out.figure('plan_change_ms', percentile(times, 50), { goal: '<2000', unit: 'ms', samples: times.length });
  out.figure(
    'plan_change_cpu_ms',
    percentile(
      changes.map((c) => c.cpuMs),
      50,
    ),
    { unit: 'ms' },
  );
  out.figure('plan_change_first_ms', times[0]!, { unit: 'ms' });
  out.figure('plan_change_max_ms', Math.max(...times), { unit: 'ms' });
  await checkpoint(engine);
  const organizationPlan = await change(ORGANIZATION_PLAN, 120_000);
  out.figure('organization_plan_change_ms', organizationPlan.ms, { unit: 'ms' });
  out.figure('organization_plan_change_cpu_ms', organizationPlan.cpuMs, { unit: 'ms' });
}

/**
 * Copies what was written (a plan change writes about 60 MB of write-ahead log) into the database file, and
 * returns how long that took. Untimed by the figures: otherwise the checkpointer's thread would still be
 * copying one plan change while the next one, or the requests, run.
 */
async function checkpoint(engine: ResourceEngine): Promise<number> {
  const started = performance.now();
  const { PgStorage } = await import('../../control-plane/dist/resources/storage/postgres/pg-storage.js');
  if (engine.storage instanceof PgStorage) {
    engine.storage.query('CHECKPOINT'); // PostgreSQL's: what was written is flushed into the tables' files
    return performance.now() - started;
  }
  // busy while the checkpointer's thread is at it: wait for it, then copy what is left
  for (;;) {
    const [result] = (await sqliteDatabaseOf(engine)).pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy === 0) return performance.now() - started;
    if (performance.now() - started > 60_000) throw new Error('the write-ahead log stayed busy for a minute');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The SQLite database the engine keeps its records in (the bench tunes it and checkpoints it). */
async function sqliteDatabaseOf(engine: ResourceEngine): Promise<SqliteDatabase> {
  const { SqliteStorage } = await import('../../control-plane/dist/resources/storage/sqlite/sqlite-storage.js');
  if (engine.storage instanceof SqliteStorage) return engine.storage.db;
  throw new Error(`the ${engine.storage.kind} storage has no SQLite database`);
}

// ---- 3. plan assignment requests ----------------------------------------------------------------------
//
// The clients run in a child process (this script, role REQUEST_CLIENTS_ROLE): a load generator sharing the
// server's event loop would take turns from the server it measures. This process spends only the server's time,
// and its CPU figures are the server's alone.

/** The three kinds of call, in the order they run: the accepted ones accept the pending ones. */
type RequestPhase = 'auto-approved' | 'pending' | 'accepted';

interface RunCommand {
  type: 'run';
  url: string;
  apiKey: string;
  phase: RequestPhase;
}
interface RanReport {
  type: 'ran';
  phase: RequestPhase;
  /** how long the child took for all of the phase's calls */
  ms: number;
}

/** A type guard for one kind of IPC message (a declaration: the roles run before later consts initialize). */
function isMessage<T extends { type: string }>(type: T['type']): (message: unknown) => message is T {
  return (message: unknown): message is T =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

async function measureRequests(
  client: OutpostClient,
  server: { url: string; apiKey: string },
  out: Reporter,
): Promise<void> {
  const { forkSelf, receive, send, awaitExit } = await import('./lib/self-fork.js');
  await client.create(SERVICE, 'plans', {
    name: LOWER_PLAN,
    planLevel: 'PROJECT',
    resourceLimits: [{ resource: DEVICES, value: 500 }],
  });
  await client.create(SERVICE, 'plans', {
    name: HIGHER_PLAN,
    planLevel: 'PROJECT',
    resourceLimits: [{ resource: DEVICES, value: 2_000 }],
  });
  const clients = forkSelf(import.meta.url, REQUEST_CLIENTS_ROLE);
  let total = 0;
  let totalMs = 0;
  let totalCpuMs = 0;
  try {
    for (const [phase, figure] of [
      ['auto-approved', 'requests_auto_approved_per_s'],
      ['pending', 'requests_pending_per_s'],
      ['accepted', 'requests_accepted_per_s'],
    ] as const) {
      out.progress(`${REQUESTS} ${phase} requests from ${CONCURRENCY} clients in a child process...`);
      const cpu = process.cpuUsage();
      await send(clients, { type: 'run', url: server.url, apiKey: server.apiKey, phase } satisfies RunCommand);
      const { ms } = await receive(clients, isMessage<RanReport>('ran'), TIME_LIMIT_MS, `the ${phase} requests`);
      const spent = cpuMs(cpu);
      total += REQUESTS;
      totalMs += ms;
      totalCpuMs += spent;
      out.progress(`${REQUESTS} ${phase} requests in ${ms.toFixed(0)} ms`);
      out.figure(figure, REQUESTS / (ms / 1000), { unit: 'requests/s', samples: REQUESTS });
      out.figure(`${figure.replace(/_per_s$/, '')}_cpu_ms_each`, spent / REQUESTS, { unit: 'ms', samples: REQUESTS });
    }
  } finally {
    clients.kill();
    await awaitExit(clients, 10_000);
  }
  out.figure('plan_assignment_requests_per_s', total / (totalMs / 1000), {
    goal: '>=500',
    unit: 'requests/s',
    samples: total,
  });
  out.figure('plan_assignment_request_cpu_ms_each', totalCpuMs / total, { unit: 'ms', samples: total });
}

/** The child process: runs each phase it is told to with CONCURRENCY clients and reports how long it took. */
async function requestClients(): Promise<void> {
  const { receive, send } = await import('./lib/self-fork.js');
  const { nodeHttpFetch } = await import('./lib/node-http-fetch.js');
  const { OutpostClient } = await import('@outpost/shared');
  process.once('disconnect', () => process.exit(1)); // the benchmark went away
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const targets = Array.from({ length: REQUESTS }, (_, i) => project(i % ORGANIZATIONS, Math.floor(i / ORGANIZATIONS)));
  const pending: string[] = [];
  for (;;) {
    const command = await receive(process, isMessage<RunCommand>('run'), TIME_LIMIT_MS, 'the next phase');
    const client = new OutpostClient({
      server: command.url,
      apiKey: command.apiKey,
      fetch: nodeHttpFetch(agent),
      userAgent: 'outpost-bench',
    });
    const request = async (i: number, id: string, plan: string, expected: string): Promise<string> => {
      const created = await client.create<{ name: string; status: { conclusion: string } }>(
        targets[i]!,
        'planAssignmentRequests',
        { name: `${targets[i]}/planAssignmentRequests/${id}`, request: { assign: { plan } } },
      );
      if (created.status.conclusion !== expected)
        throw new Error(`${created.name} is ${created.status.conclusion}, not ${expected}`);
      return created.name;
    };
    const calls: Record<RequestPhase, (i: number) => Promise<void>> = {
      'auto-approved': async (i) => void (await request(i, 'lower', LOWER_PLAN, 'APPROVED')),
      pending: async (i) => {
        pending[i] = await request(i, 'higher', HIGHER_PLAN, 'PENDING');
      },
      accepted: async (i) => {
        await client.request('POST', `/v1/${pending[i]}:accept`, { body: {} });
      },
    };
    const started = performance.now();
    await inParallel(REQUESTS, CONCURRENCY, calls[command.phase]);
    await send(process, { type: 'ran', phase: command.phase, ms: performance.now() - started } satisfies RanReport);
  }
}

/** CPU time (user + system, ms) this process spent since `since` (a process.cpuUsage() reading). */
function cpuMs(since: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(since);
  return (spent.user + spent.system) / 1000;
}

async function inParallel(count: number, concurrency: number, call: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await call(i);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

// ---- checks -------------------------------------------------------------------------------------------

async function verify(client: OutpostClient, noPlanChanges: boolean): Promise<void> {
  // the project and organization plans' values: as created, or as the plan changes left them
  const [small, orgSize] = noPlanChanges ? [1_000, 100_000] : [1_500, 120_000];
  const expectValue = (what: string, actual: unknown, expected: number): void => {
    if (actual !== expected) throw new Error(`${what} is ${String(actual)}, expected ${expected}`);
  };
  for (const o of [0, 500, ORGANIZATIONS - 1]) {
    for (const region of REGIONS) {
      // projects p0 and p1 of every organization took project-higher (2,000); the rest keep project-small
      const reserved = 2 * 2_000 + (PROJECTS_PER_ORGANIZATION - 2) * small;
      const pool = await client.get<{ configuredSize: number; reserved: number }>(poolOf(org(o), region));
      expectValue(`${poolOf(org(o), region)} configuredSize`, pool.configuredSize, orgSize);
      expectValue(`${poolOf(org(o), region)} reserved`, pool.reserved, reserved);
      const high = await client.get<{ configuredLimit: number }>(limitOf(project(o, 1), region));
      expectValue(`${limitOf(project(o, 1), region)}`, high.configuredLimit, 2_000);
      const plain = await client.get<{ configuredLimit: number }>(limitOf(project(o, 5), region));
      expectValue(`${limitOf(project(o, 5), region)}`, plain.configuredLimit, small);
    }
  }
  const service = await client.get<{ reserved: number }>(poolOf(SERVICE, 'r1'));
  expectValue('the service pool reserved', service.reserved, ORGANIZATIONS * orgSize);
}
