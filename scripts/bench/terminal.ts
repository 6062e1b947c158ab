/**
 * Benchmark: the remote terminal and port forwarding (issue 21), over loopback.
 *
 * Starts, as child processes, a real control plane (control-plane/dist, a fresh SQLite file) and a real droplet agent
 * (agent/dist) connected to it; the forwards go through the built `outpost devices port-forward` (its own process).
 *
 *   keystroke_echo_p50_ms, keystroke_echo_p99_ms   one byte typed into `cat` on a pseudo-terminal of the device
 *       (the :terminal WebSocket, as the CLI and the dashboard use it) until its echo comes back; goal p99 < 10
 *   forward_download_mb_s, bare_download_mb_s      bytes a TCP server sends, read through the forward / straight
 *   forward_upload_mb_s, bare_upload_mb_s          bytes sent to a TCP sink through the forward / straight
 *   forward_vs_bare_download_ratio, forward_vs_bare_upload_ratio   goal >= 0.5
 *   relay_chain_download_mb_s, relay_chain_upload_mb_s   the same through a chain of three plain node TCP relays
 *       (lib/plain-tcp-relay.mjs, each its own process): as many loopback hops and relaying processes as the forward
 *       (the CLI, the control plane, the agent), without its protocol; what bounds the forward on this machine
 *   forward_vs_relay_chain_download_ratio, forward_vs_relay_chain_upload_ratio   the forward's protocol's own cost
 *   forward_cpu_seconds_per_gb_control_plane, _agent, _cli   CPU each process spent per GB forwarded
 *   heartbeat_disconnects   times the device went Offline during the sessions (goal 0)
 *   load_average_1m_start, load_average_1m_end   the machine's 1-minute load average around the run (the figures of
 *       a shared machine mean little without it)
 *
 * "Bare" is the benchmark's own client and server (one process, the same 1 MiB writes and the same reads as through the
 * forward) talking straight to each other over loopback TCP: one hop, no relaying process; the forward adds three
 * processes that each read and write every byte again (four loopback hops), which with two cores is the bound (see
 * the relay chain).
 *
 * The echo is measured KEYSTROKES times one after the other, once the control plane and the agent are idle (the agent's
 * start-up work, its first reports and configuration, runs beside the first keystrokes otherwise) and after
 * WARMUP_KEYSTROKES not counted; the transfers move TRANSFER_MIB each, in ROUNDS rounds
 * alternating forward and bare, each figure the best round. MB are 10^6 bytes. Output: one JSON line per figure on
 * stdout, progress on stderr.
 *
 * Run from the repository root:
 *   npm run build && npx tsx scripts/bench/terminal.ts
 * Environment: KEYSTROKES (default 500), TRANSFER_MIB (default 256), ROUNDS (default 3); CHILD_NODE_FLAGS, node flags
 * for the child processes (`--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg } from 'node:os';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { parseBenchFlags } from './lib/bench-flags.js';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { cpuSecondsOf, firstLine, freePort } from './lib/process-stats.js';
import { controlPlaneUp, countDisconnects, deviceConnected, provisionDeviceRoot } from './lib/bench-device.js';
import { createReporter } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter, sleep, withTimeout } from './lib/time.js';

const KEYSTROKES = Number(process.env['KEYSTROKES'] ?? 500);
const TRANSFER_BYTES = Number(process.env['TRANSFER_MIB'] ?? 256) * 1024 * 1024;
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const WARMUP_KEYSTROKES = 50;
/** extra node flags for the control plane, the agent and the CLI, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` */
const CHILD_NODE_FLAGS = (process.env['CHILD_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
const DEVICE = 'projects/bench/regions/local/devices/term-bench';
const SERVER_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'server', 'main.js');
const AGENT_MAIN = join(REPO_ROOT, 'agent', 'dist', 'main.js');
const CLI_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'cli', 'main.js');
const PLAIN_RELAY = join(REPO_ROOT, 'scripts', 'bench', 'lib', 'plain-tcp-relay.mjs');

parseBenchFlags({
  script: 'terminal.ts',
  summary:
    'The remote terminal (keystroke echo) and port forwarding (throughput against bare TCP and a relay chain) ' +
    'through a built control plane and agent. One JSON line per figure on stdout, progress on stderr.',
  flags: {},
  notes:
    'Environment: KEYSTROKES (default 500), TRANSFER_MIB (default 256), ROUNDS (default 3); CHILD_NODE_FLAGS, node ' +
    "flags for the child processes (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').",
});
requireBuiltPackages(['shared', 'control-plane']);
for (const built of [SERVER_MAIN, AGENT_MAIN, CLI_MAIN]) {
  if (!existsSync(built)) {
    process.stderr.write(`benchmark cannot start: ${built} is missing. Run \`npm run build\` first.\n`);
    process.exit(1);
  }
}
exitAfter(15 * 60_000, 1, 'terminal benchmark: gave up after 15 minutes');
const shared = await import('@outpost/shared');
const { openRemoteSocket } = await import('../../control-plane/dist/remote/remote-access-client.js');
const report = createReporter('terminal');
const children: ChildProcess[] = [];
try {
  await withTempDir('outpost-bench-terminal-', async (dir) => {
    const apiKey = `bench-${randomBytes(16).toString('hex')}`;
    const port = await freePort();
    const server = `http://127.0.0.1:${port}`;
    const serverArgs = [
      SERVER_MAIN,
      '--port',
      String(port),
      '--data-dir',
      join(dir, 'server'),
      '--log-level',
      'silent',
    ];
    const controlPlane = start(serverArgs, { OUTPOST_ADMIN_KEY: apiKey });
    children.push(controlPlane);
    await controlPlaneUp(server);
    const admin = new shared.OutpostClient({ server, apiKey });
    const root = join(dir, 'device');
    await provisionDeviceRoot(admin, DEVICE, server, root);
    const agent = start([AGENT_MAIN, '--device-root', root, '--log-level', 'warn'], {});
    children.push(agent);
    await deviceConnected(admin, DEVICE);

    // the sessions' bytes travel in channels with a credit window: the device's link must stay up throughout
    const disconnects = countDisconnects(admin, DEVICE);

    report.figure('load_average_1m_start', loadavg()[0]!);
    await settled([controlPlane.pid!, agent.pid!]);
    report.progress(`keystroke echo, ${KEYSTROKES} keystrokes`);
    const ws = await openRemoteSocket(
      { server, apiKey },
      DEVICE,
      'terminal',
      new URLSearchParams([
        ['command', 'cat'],
        ['cols', '80'],
        ['rows', '24'],
      ]),
    );
    let echoed: ((text: string) => void) | undefined;
    ws.on('message', (data: Buffer) => {
      const record = shared.decodeTerminalMessage(data);
      if (record?.type === shared.TERMINAL_RECORD.OUTPUT) echoed?.(Buffer.from(record.payload).toString());
    });
    ws.resume();
    const rounds: number[] = [];
    for (let i = 0; i < KEYSTROKES + WARMUP_KEYSTROKES; i++) {
      const key = String.fromCharCode(97 + (i % 26));
      const started = performance.now();
      await new Promise<void>((resolve) => {
        echoed = (text) => text.includes(key) && resolve();
        ws.send(shared.encodeTerminalMessage(shared.TERMINAL_RECORD.INPUT, Buffer.from(key)));
      });
      // the first keystrokes warm up the path (JIT, the pseudo-terminal)
      if (i >= WARMUP_KEYSTROKES) rounds.push(performance.now() - started);
      // a line now and then keeps cat's line buffer small
      if (i % 64 === 63) ws.send(shared.encodeTerminalMessage(shared.TERMINAL_RECORD.INPUT, Buffer.from('\r')));
    }
    ws.close();
    const echo = summarize(rounds);
    report.figure('keystroke_echo_p50_ms', echo.p50, { unit: 'ms', samples: echo.count });
    report.figure('keystroke_echo_p99_ms', echo.p99, { unit: 'ms', samples: echo.count, goal: '<10' });

    const source = await listen((socket) => {
      const block = Buffer.alloc(1024 * 1024, 7);
      let left = TRANSFER_BYTES;
      const more = (): void => {
        while (left > 0) {
          left -= block.length;
          if (!socket.write(block)) return void socket.once('drain', more);
        }
        socket.end();
      };
      more();
    });
    const sink = await listen((socket) => {
      let got = 0;
      socket.on('data', (chunk: Buffer) => (got += chunk.length));
      socket.on('end', () => socket.end(`${got}`));
    });
    const forwardTo = async (target: Server): Promise<{ cli: ChildProcess; port: number }> => {
      const cli = start(
        [CLI_MAIN, 'devices', 'port-forward', DEVICE, `0:127.0.0.1:${(target.address() as AddressInfo).port}`],
        { OUTPOST_SERVER: server, OUTPOST_API_KEY: apiKey },
        true,
      );
      children.push(cli);
      const line = await withTimeout(lineMatching(cli, /^Forwarding from /), 30_000, 'the forward to listen');
      return { cli, port: Number(/:(\d+) to /.exec(line)?.[1]) };
    };
    const downForward = await forwardTo(source);
    const upForward = await forwardTo(sink);
    const chainTo = async (target: Server): Promise<number> => {
      let port = (target.address() as AddressInfo).port;
      for (let hop = 0; hop < 3; hop++) {
        // without CHILD_NODE_FLAGS: the reference stays plain (and prints nothing before its port)
        const relay = start([PLAIN_RELAY, String(port)], {}, true, []);
        children.push(relay);
        port = Number(await withTimeout(firstLine(relay), 30_000, 'a plain relay to listen'));
      }
      return port;
    };
    const downChain = await chainTo(source);
    const upChain = await chainTo(sink);
    const seconds = {
      fDown: [] as number[],
      bDown: [] as number[],
      rDown: [] as number[],
      fUp: [] as number[],
      bUp: [] as number[],
      rUp: [] as number[],
    };
    // CPU each process spends on the forwarded bytes (both directions), to tell where a forward's time goes
    const processes = { control_plane: controlPlane, agent, cli: downForward.cli, cli_up: upForward.cli };
    const cpu = (): Record<string, number> =>
      Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, cpuSecondsOf(child.pid!)]));
    const cpuBefore = cpu();
    for (let round = 1; round <= ROUNDS; round++) {
      report.progress(
        `round ${round}/${ROUNDS}: ${TRANSFER_BYTES / 1024 / 1024} MiB each way, forward, bare and relay chain`,
      );
      seconds.fDown.push(await download(downForward.port));
      seconds.bDown.push(await download((source.address() as AddressInfo).port));
      seconds.rDown.push(await download(downChain));
      seconds.fUp.push(await upload(upForward.port));
      seconds.bUp.push(await upload((sink.address() as AddressInfo).port));
      seconds.rUp.push(await upload(upChain));
    }
    // (includes what the forward's processes spent idle during the other transfers: next to nothing)
    const cpuAfter = cpu();
    const forwardedGb = (2 * ROUNDS * TRANSFER_BYTES) / 1e9;
    report.figure(
      'forward_cpu_seconds_per_gb_control_plane',
      (cpuAfter['control_plane']! - cpuBefore['control_plane']!) / forwardedGb,
    );
    report.figure('forward_cpu_seconds_per_gb_agent', (cpuAfter['agent']! - cpuBefore['agent']!) / forwardedGb);
    const cliSeconds = cpuAfter['cli']! - cpuBefore['cli']! + cpuAfter['cli_up']! - cpuBefore['cli_up']!;
    report.figure('forward_cpu_seconds_per_gb_cli', cliSeconds / forwardedGb);
    const mbs = (all: number[]): number => TRANSFER_BYTES / 1e6 / Math.min(...all);
    report.figure('forward_download_mb_s', mbs(seconds.fDown), { unit: 'MB/s', samples: ROUNDS });
    report.figure('bare_download_mb_s', mbs(seconds.bDown), { unit: 'MB/s', samples: ROUNDS });
    report.figure('forward_upload_mb_s', mbs(seconds.fUp), { unit: 'MB/s', samples: ROUNDS });
    report.figure('bare_upload_mb_s', mbs(seconds.bUp), { unit: 'MB/s', samples: ROUNDS });
    report.figure('forward_vs_bare_download_ratio', mbs(seconds.fDown) / mbs(seconds.bDown), { goal: '>=0.5' });
    report.figure('forward_vs_bare_upload_ratio', mbs(seconds.fUp) / mbs(seconds.bUp), { goal: '>=0.5' });
    report.figure('relay_chain_download_mb_s', mbs(seconds.rDown), { unit: 'MB/s', samples: ROUNDS });
    report.figure('relay_chain_upload_mb_s', mbs(seconds.rUp), { unit: 'MB/s', samples: ROUNDS });
    report.figure('forward_vs_relay_chain_download_ratio', mbs(seconds.fDown) / mbs(seconds.rDown));
    report.figure('forward_vs_relay_chain_upload_ratio', mbs(seconds.fUp) / mbs(seconds.rUp));
    const heartbeatDisconnects = await disconnects.stop();
    report.figure('heartbeat_disconnects', heartbeatDisconnects, { goal: '=0' });
    report.figure('load_average_1m_end', loadavg()[0]!);
    source.close();
    sink.close();
  });
} finally {
  for (const child of children) child.kill('SIGTERM');
}
const missed = report.missed();
if (missed.length > 0) report.progress(`missed goals: ${missed.join(', ')}`);

/** Waits until each of `pids` used under 5 % of a core over half a second (at most 30 s). */
async function settled(pids: readonly number[]): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const before = pids.map(cpuSecondsOf);
    await sleep(500);
    const busiest = Math.max(...pids.map((pid, i) => cpuSecondsOf(pid) - before[i]!)) / 0.5;
    if (busiest < 0.05 || performance.now() > deadline) return;
  }
}

/** Reads all a connection to `port` sends; answers the seconds it took. */
async function download(port: number): Promise<number> {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  let got = 0;
  for await (const chunk of socket) got += (chunk as Buffer).length;
  if (got !== TRANSFER_BYTES) throw new Error(`downloaded ${got} bytes of ${TRANSFER_BYTES}`);
  return (performance.now() - started) / 1000;
}

/** Sends TRANSFER_BYTES to the sink at `port` and waits for its count; answers the seconds it took. */
async function upload(port: number): Promise<number> {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  const block = Buffer.alloc(1024 * 1024, 9);
  for (let sent = 0; sent < TRANSFER_BYTES; sent += block.length) {
    if (!socket.write(block)) await new Promise((resolve) => socket.once('drain', resolve));
  }
  socket.end();
  let answer = '';
  for await (const chunk of socket) answer += (chunk as Buffer).toString();
  if (Number(answer) !== TRANSFER_BYTES) throw new Error(`the sink counted ${answer} bytes of ${TRANSFER_BYTES}`);
  return (performance.now() - started) / 1000;
}

/** The first line `child` prints on its stdout that matches `pattern` (node's --trace-gc prints there too). */
function lineMatching(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((l, i, all) => i < all.length - 1 && pattern.test(l));
      if (line !== undefined) resolve(line);
    });
    child.once('exit', () => reject(new Error(`${child.spawnfile} ended before it printed ${pattern}`)));
  });
}

function listen(onConnection: (socket: import('node:net').Socket) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(onConnection);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** A node child whose stdout this script reads (`readStdout`) or passes on to stderr. */
function start(
  args: string[],
  env: Record<string, string>,
  readStdout = false,
  nodeFlags: readonly string[] = CHILD_NODE_FLAGS,
): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, ...args], {
    env: { ...process.env, ...env },
    // fd 2: what a child prints goes to our stderr, never among the figures on stdout
    stdio: ['ignore', readStdout ? 'pipe' : 2, 'inherit'],
  });
  child.on('error', (err) => process.stderr.write(`${args[0]}: ${err.message}\n`));
  return child;
}
