/**
 * Benchmark: what an idle agent costs its device. One real droplet (boot backend `none`) connected to a real
 * control plane in this process, running 10 health checks every 10 s (HTTP, TCP, gRPC, ICMP, command and
 * device-file checks against local targets this process serves) and sending metrics every 60 s; next to it, for
 * scale, a bare `node -e "setInterval(()=>{},1000)"` measured over the same time. Both are read from /proc every
 * few seconds once every check has turned Healthy.
 *
 * The droplet is agent/dist/main.js as `npm run build` bundles it, run by plain node exactly as it is installed
 * (droplet.service, install-agent.sh): its one V8 flag, --max-opt=0 (interpreter only), is set by the agent
 * itself at start (agent/src/main.ts), so it applies here as everywhere. --expose-gc and the --import preload
 * below only serve the settled-memory probe; --node-flags adds flags for experiments.
 *
 * Figures (one JSON line each on stdout; progress on stderr):
 *   agent_rss_mb, bare_node_rss_mb   median VmRSS over the run
 *   rss_ratio                        agent / bare node (goal <= 1.4)
 *   agent_cpu_pct_of_core            the agent's CPU time / wall time, in % of one core (goal <= 1)
 *   bare_node_cpu_pct_of_core
 *   agent_rss_trend_mb_per_hour      least-squares slope of the agent's RSS over the run (V8 lets garbage pile
 *                                    up between major GCs, so ten minutes of it rise without a leak)
 *   agent_settled_rss_trend_mb_per_hour, agent_settled_heap_trend_mb_per_hour
 *                                    the same for RSS and V8's heapUsed right after two full GCs, taken every
 *                                    minute (the agent runs with --expose-gc and a preload answering SIGUSR2):
 *                                    the leak test (goals <= 1 and <= 0.5 MiB/h)
 *   checks_healthy                   Healthy/* conditions True at the end (goal = the number of checks)
 *   probes_served                    requests the HTTP, TCP and gRPC targets saw (the checks really ran)
 *
 * Run from the repository root:  npm run build && npx tsx scripts/bench/agent-idle.ts
 *   [--seconds 600] [--warmup 120] [--interval 10] [--sample-seconds 5] [--metrics-interval 60] [--checks 10]
 *   [--without-grpc] [--node-flags='--flag ...']   (--checks 0: the agent alone, for comparison)
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseBenchFlags } from './lib/bench-flags.js';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import { percentile } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, sleep, withTimeout } from './lib/time.js';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const PARENT = 'projects/bench/regions/local';
const DEVICE = `${PARENT}/devices/idle-agent`;
const AGENT_MAIN = join(REPO_ROOT, 'agent', 'dist', 'main.js');

interface Options {
  seconds: number;
  interval: number;
  sampleSeconds: number;
  metricsInterval: number;
  withGrpc: boolean;
  nodeFlags: string[];
  checks: number;
  warmupSeconds: number;
}

function options(): Options {
  const { values, integer } = parseBenchFlags({
    script: 'agent-idle.ts',
    summary:
      'What an idle agent costs its device: one real droplet connected to a control plane in this process, running ' +
      'health checks and sending metrics, against a bare node process. One JSON line per figure on stdout.',
    flags: {
      seconds: { value: 'N', default: '600', help: 'seconds measured, after the warm-up' },
      warmup: { value: 'N', default: '120', help: 'seconds after every check turned Healthy before measuring' },
      interval: { value: 'N', default: '10', help: "the health checks' interval in seconds" },
      'sample-seconds': { value: 'N', default: '5', help: 'seconds between two readings of /proc' },
      'metrics-interval': { value: 'N', default: '60', help: "seconds between the agent's metrics messages" },
      checks: { value: 'N', default: '10', help: 'health checks, 0 to 10 (0: the agent alone, for comparison)' },
      'without-grpc': { help: 'leave the gRPC health check out' },
      'node-flags': {
        value: 'FLAGS',
        default: '',
        help: "further node flags for the agent, for experiments (--node-flags='--flag ...')",
      },
    },
  });
  return {
    seconds: integer(values.seconds, 'seconds'),
    interval: integer(values.interval, 'interval'),
    sampleSeconds: integer(values['sample-seconds'], 'sample-seconds'),
    metricsInterval: integer(values['metrics-interval'], 'metrics-interval'),
    withGrpc: !values['without-grpc'],
    nodeFlags: values['node-flags'].split(' ').filter((f) => f !== ''),
    checks: Math.min(10, integer(values.checks, 'checks', 0)),
    warmupSeconds: integer(values.warmup, 'warmup', 0),
  };
}

interface ProcSample {
  timeMs: number;
  rssBytes: number;
  cpuTicks: number;
}

function procSample(pid: number): ProcSample {
  const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    timeMs: performance.now(),
    rssBytes: Number(rss?.[1] ?? 0) * 1024,
    cpuTicks: Number(fields[11]) + Number(fields[12]),
  };
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<void> {
  const opts = options();
  requireBuiltPackages(['shared', 'control-plane']);
  if (!existsSync(AGENT_MAIN)) {
    process.stderr.write(`agent-idle cannot start: ${AGENT_MAIN} is missing. Run \`npm run build\` first.\n`);
    process.exit(1);
  }
  const report = createReporter('agent-idle', { seconds: opts.seconds, checks: opts.checks });
  exitAfter((opts.seconds + opts.warmupSeconds + 300) * 1000, 1, 'agent-idle: did not finish in time');
  const { startBenchServer } = await import('./lib/bench-server.js');

  await withTempDir('outpost-agent-idle-', async (dir) => {
    const children: ChildProcess[] = [];
    const closers: (() => Promise<void> | void)[] = [];
    try {
      // local targets the checks probe
      let probes = 0;
      const http = createServer((_req, res) => {
        probes++;
        res.end('ok');
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
      const tcp = createTcpServer((socket) => {
        probes++;
        socket.end();
      });
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
      const httpPort = (http.address() as AddressInfo).port;
      const tcpPort = (tcp.address() as AddressInfo).port;
      const grpcPort = opts.withGrpc ? await startGrpcTarget(closers, () => probes++) : undefined;

      const server = await startBenchServer(join(dir, 'server'));
      closers.push(() => server.close());
      const client = server.client();
      await client.create(PARENT, 'devices', { name: DEVICE });
      const { credential } = await client.request<{ credential: string }>('POST', `/v1/${DEVICE}:issueCredential`, {
        body: {},
      });
      const every = { intervalSeconds: opts.interval, timeoutSeconds: Math.min(5, opts.interval) };
      const allChecks: Record<string, unknown>[] = [
        { type: 'HTTP', http: { url: `http://127.0.0.1:${httpPort}/healthz` } },
        { type: 'HTTP', http: { url: `http://127.0.0.1:${httpPort}/ready`, bodyContains: 'ok' } },
        { type: 'TCP', tcp: { host: '127.0.0.1', port: tcpPort } },
        { type: 'TCP', tcp: { host: '127.0.0.1', port: tcpPort } },
        grpcPort === undefined
          ? { type: 'TCP', tcp: { host: '127.0.0.1', port: tcpPort } }
          : { type: 'GRPC', grpc: { host: '127.0.0.1', port: grpcPort } },
        { type: 'ICMP', icmp: { host: '127.0.0.1' } },
        { type: 'COMMAND', command: { argv: ['true'] } },
        { type: 'DEVICE_FILE', deviceFile: { path: '/dev/null', type: 'CHARACTER_DEVICE' } },
        { type: 'DEVICE_FILE', deviceFile: { path: dir, type: 'DIRECTORY' } },
        { type: 'DEVICE_FILE', deviceFile: { path: '/proc/self' } },
      ];
      const checks = allChecks.slice(0, opts.checks);
      for (const [i, spec] of checks.entries()) {
        await client.create(PARENT, 'healthChecks', {
          name: `${PARENT}/healthChecks/check-${i}`,
          spec: { ...spec, ...every, selector: { matchLabels: {} } },
        });
      }

      const root = join(dir, 'device');
      mkdirSync(join(root, 'config'), { recursive: true });
      writeFileSync(
        join(root, 'config', 'droplet.json'),
        JSON.stringify({ server: server.url, deviceName: DEVICE, bootBackend: 'none' }),
      );
      writeFileSync(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });
      const agent = spawn(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          MEMORY_PRELOAD,
          ...opts.nodeFlags,
          AGENT_MAIN,
          '--device-root',
          root,
          '--metrics-interval',
          String(opts.metricsInterval),
          '--log-level',
          'warn',
        ],
        { stdio: ['ignore', 'inherit', 'pipe'], env: withoutDropletEnv() },
      );
      children.push(agent);
      const settled = settledMemoryOf(agent);
      const bare = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
      children.push(bare);

      report.progress('waiting for the agent to connect and every check to turn Healthy');
      interface DeviceStatus {
        status?: { connectionStatus?: string; conditions?: { type: string; status: string }[] };
      }
      const healthyCount = async (): Promise<number> => {
        const device = await client.get<DeviceStatus>(DEVICE);
        if (device.status?.connectionStatus !== 'CONNECTED') return -1;
        return (device.status.conditions ?? []).filter((c) => c.type.startsWith('Healthy/') && c.status === 'True')
          .length;
      };
      const warmDeadline = Date.now() + 120_000;
      while ((await healthyCount()) < checks.length) {
        if (Date.now() > warmDeadline) throw new Error('the checks did not all turn Healthy within 2 minutes');
        await sleep(500);
      }
      // idle is after start-up: modules loaded, first device info read, the hot functions optimised by V8
      report.progress(`warming up for ${opts.warmupSeconds} s`);
      await sleep(opts.warmupSeconds * 1000);

      report.progress(`measuring for ${opts.seconds} s`);
      const agentSamples: ProcSample[] = [];
      const bareSamples: ProcSample[] = [];
      const settledSamples: { timeMs: number; rssBytes: number; heapUsed: number }[] = [];
      const settle = async (): Promise<void> => {
        const usage = await settled();
        settledSamples.push({ timeMs: performance.now(), rssBytes: usage.rss, heapUsed: usage.heapUsed });
      };
      await settle();
      const probesBefore = probes;
      const started = performance.now();
      const end = started + opts.seconds * 1000;
      let nextSettle = started + 60_000;
      while (performance.now() < end) {
        agentSamples.push(procSample(agent.pid!));
        bareSamples.push(procSample(bare.pid!));
        if (performance.now() >= nextSettle) {
          nextSettle += 60_000;
          await settle();
          const last = settledSamples.at(-1)!;
          report.progress(
            `${Math.round((last.timeMs - started) / 1000)} s: agent ${(agentSamples.at(-1)!.rssBytes / 2 ** 20).toFixed(1)} MiB, after a full GC ${(last.rssBytes / 2 ** 20).toFixed(1)} MiB (heap ${(last.heapUsed / 2 ** 20).toFixed(2)} MiB)`,
          );
        }
        await sleep(Math.min(opts.sampleSeconds * 1000, Math.max(0, end - performance.now())));
      }
      agentSamples.push(procSample(agent.pid!));
      bareSamples.push(procSample(bare.pid!));
      await settle();

      const mib = (bytes: number): number => bytes / 2 ** 20;
      const medianRss = (samples: ProcSample[]): number =>
        percentile(
          samples.map((s) => s.rssBytes),
          50,
        );
      const cpuPct = (samples: ProcSample[]): number => {
        const first = samples[0]!;
        const last = samples.at(-1)!;
        return ((last.cpuTicks - first.cpuTicks) / CLOCK_TICKS / ((last.timeMs - first.timeMs) / 1000)) * 100;
      };
      const agentRss = medianRss(agentSamples);
      const bareRss = medianRss(bareSamples);
      report.figure('agent_rss_mb', mib(agentRss), { unit: 'MiB', samples: agentSamples.length });
      report.figure('bare_node_rss_mb', mib(bareRss), { unit: 'MiB', samples: bareSamples.length });
      report.figure('rss_ratio', agentRss / bareRss, { goal: '<=1.4' });
      report.figure('agent_cpu_pct_of_core', cpuPct(agentSamples), { goal: '<=1', unit: '%' });
      report.figure('bare_node_cpu_pct_of_core', cpuPct(bareSamples), { unit: '%' });
      const hours = (timeMs: number): number => timeMs / 3_600_000;
      report.figure(
        'agent_rss_trend_mb_per_hour',
        slope(agentSamples.map((s) => ({ x: hours(s.timeMs), y: mib(s.rssBytes) }))),
        { unit: 'MiB/h' },
      );
      report.figure(
        'agent_settled_rss_trend_mb_per_hour',
        slope(settledSamples.map((s) => ({ x: hours(s.timeMs), y: mib(s.rssBytes) }))),
        { goal: '<=1', unit: 'MiB/h', samples: settledSamples.length },
      );
      report.figure(
        'agent_settled_heap_trend_mb_per_hour',
        slope(settledSamples.map((s) => ({ x: hours(s.timeMs), y: mib(s.heapUsed) }))),
        { goal: '<=0.5', unit: 'MiB/h', samples: settledSamples.length },
      );
      report.figure('checks_healthy', await healthyCount(), { goal: `=${checks.length}` });
      report.figure('probes_served', probes - probesBefore);
      const missed = report.missed();
      if (missed.length > 0) report.progress(`missed goals: ${missed.join(', ')}`);
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(
        children.map((c) => new Promise((resolve) => (c.exitCode === null ? c.once('exit', resolve) : resolve(null)))),
      );
      for (const close of closers.reverse()) await close();
    }
  });
}

const MEMORY_LINE = 'agent-idle-memory ';

/** In the agent: on SIGUSR2, two full GCs, then process.memoryUsage() as one line on stderr. */
const MEMORY_PRELOAD = `data:text/javascript,${encodeURIComponent(
  `process.on('SIGUSR2', () => { globalThis.gc(); globalThis.gc(); ` +
    `process.stderr.write(${JSON.stringify(MEMORY_LINE)} + JSON.stringify(process.memoryUsage()) + '\\n'); });`,
)}`;

/** Asks the agent for its memory after a full GC (the preload's SIGUSR2); other stderr lines pass through. */
function settledMemoryOf(agent: ChildProcess): () => Promise<NodeJS.MemoryUsage> {
  const waiters: ((usage: NodeJS.MemoryUsage) => void)[] = [];
  createInterface({ input: agent.stderr! }).on('line', (line) => {
    if (line.startsWith(MEMORY_LINE))
      waiters.shift()?.(JSON.parse(line.slice(MEMORY_LINE.length)) as NodeJS.MemoryUsage);
    else process.stderr.write(`${line}\n`);
  });
  return () => {
    const usage = new Promise<NodeJS.MemoryUsage>((resolve) => waiters.push(resolve));
    agent.kill('SIGUSR2');
    return withTimeout(usage, 30_000, 'a full GC in the agent');
  };
}

/** A gRPC server with grpc.health.v1 answering SERVING (hand-written service definition). */
async function startGrpcTarget(closers: (() => Promise<void> | void)[], onProbe: () => void): Promise<number> {
  const grpc = await import('@grpc/grpc-js');
  const server = new grpc.Server();
  server.addService(
    {
      Check: {
        path: '/grpc.health.v1.Health/Check',
        requestStream: false,
        responseStream: false,
        requestSerialize: (value: Buffer) => value,
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (value: Buffer) => value,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    },
    {
      Check: (_call: unknown, callback: (err: null, value: Buffer) => void) => {
        onProbe();
        callback(null, Buffer.from([0x08, 0x01])); // status: SERVING
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  closers.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  return port;
}

function withoutDropletEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DROPLET_')) delete env[key];
  return env;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`agent-idle: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
