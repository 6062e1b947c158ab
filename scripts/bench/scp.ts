/**
 * Benchmark: file transfer through the control plane (issue 6), against a plain HTTP baseline, 1 GiB each way.
 *
 * Starts, as child processes, a real control plane (control-plane/dist, a fresh SQLite file) and a real droplet
 * agent (agent/dist) connected to it, and in the same run a bare Node HTTP server (this script in another role)
 * that just writes a PUT body to a file and serves a file to a GET. This process plays the `outpost devices scp`
 * command line with the command line's own code (uploadTree and downloadTree of its transfer client):
 *
 *   scp_upload_mb_s     local file → POST {device}:upload → channel over the agent's WebSocket → file on the device
 *   scp_download_mb_s   the device's file → channel → GET {device}:download → local file
 *   http_put_mb_s       the same file PUT to the bare server (written to disk, no hashing, no fsync)
 *   http_get_mb_s       the same file fetched back from the bare server
 *   upload_vs_put_ratio, download_vs_put_ratio   goal >= 0.5
 *   heartbeat_disconnects   times the device went Offline during the transfers (goal 0)
 *
 * Three rounds alternate the four transfers; each figure is the best round (the machine's other load only ever
 * slows a transfer down).
 * Every copy is checked against the original's SHA-256 (a mismatch exits 1). MB are 10^6 bytes. Everything runs on
 * 127.0.0.1 in a temporary folder removed at the end. Output: one JSON line per figure on stdout, progress on
 * stderr. Takes about a minute on a small machine.
 *
 * Run from the repository root:
 *   npm run build && npx tsx scripts/bench/scp.ts
 * `ROUNDS=1` runs one round; to profile, `CHILD_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` passes node flags
 * to the control plane and the agent, and `node --cpu-prof --import tsx scripts/bench/scp.ts` profiles this side.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseBenchFlags } from './lib/bench-flags.js';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { controlPlaneUp, countDisconnects, deviceConnected, provisionDeviceRoot } from './lib/bench-device.js';
import { createReporter } from './lib/report.js';
import { withTempDir } from './lib/temp-dir.js';
import { firstLine, freePort } from './lib/process-stats.js';
import { exitAfter, withTimeout } from './lib/time.js';

const SIZE = 1024 * 1024 * 1024;
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
/** extra node flags for the control plane and the agent, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` */
const CHILD_NODE_FLAGS = (process.env['CHILD_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
const DEVICE = 'projects/bench/regions/local/devices/scp-bench';
const SERVER_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'server', 'main.js');
const AGENT_MAIN = join(REPO_ROOT, 'agent', 'dist', 'main.js');

/** argv[2] of the child process that is the bare HTTP server (see bareServer), its folder argv[3] */
const BARE_SERVER_ROLE = '--bare-server';
if (process.argv[2] === BARE_SERVER_ROLE) await bareServer(process.argv[3] ?? '');
else {
  parseBenchFlags({
    script: 'scp.ts',
    summary:
      'File transfer through the control plane and a real agent (outpost devices scp), 1 GiB each way, against a ' +
      'plain HTTP baseline. One JSON line per figure on stdout, progress on stderr.',
    flags: {},
    notes:
      'Environment: ROUNDS (default 3) rounds of the four transfers; CHILD_NODE_FLAGS, node flags for the control ' +
      "plane and the agent (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').",
  });
  await main();
}

async function main(): Promise<void> {
  requireBuiltPackages(['shared']);
  for (const built of [SERVER_MAIN, AGENT_MAIN]) {
    if (!existsSync(built)) {
      process.stderr.write(`benchmark cannot start: ${built} is missing. Run \`npm run build\` first.\n`);
      process.exit(1);
    }
  }
  exitAfter(15 * 60_000, 1, 'scp benchmark: gave up after 15 minutes');
  const shared = await import('@outpost/shared');
  const client = await import('../../control-plane/src/transfer/transfer-client.js');
  const report = createReporter('scp', { mib: SIZE / 1024 / 1024 });
  const children: ChildProcess[] = [];
  try {
    await withTempDir('outpost-bench-scp-', async (dir) => {
      const file = join(dir, 'payload.bin');
      report.progress(`writing ${SIZE / 1024 / 1024} MiB of random data`);
      const sha = await writeRandomFile(file, SIZE);

      const apiKey = `bench-${randomBytes(16).toString('hex')}`;
      const port = await freePort();
      const server = `http://127.0.0.1:${port}`;
      children.push(
        start(
          process.execPath,
          [
            ...CHILD_NODE_FLAGS,
            SERVER_MAIN,
            '--port',
            String(port),
            '--data-dir',
            join(dir, 'server'),
            '--log-level',
            'silent',
          ],
          {
            OUTPOST_ADMIN_KEY: apiKey,
          },
        ),
      );
      await controlPlaneUp(server);
      const admin = new shared.OutpostClient({ server, apiKey });
      const root = join(dir, 'device');
      await provisionDeviceRoot(admin, DEVICE, server, root);
      children.push(
        start(process.execPath, [...CHILD_NODE_FLAGS, AGENT_MAIN, '--device-root', root, '--log-level', 'warn'], {}),
      );
      await deviceConnected(admin, DEVICE);
      const disconnects = countDisconnects(admin, DEVICE);

      const connection = { server, apiKey };
      const remote = join(dir, 'on-device');
      const back = join(dir, 'back');
      const bareDir = join(dir, 'bare');
      mkdirSync(back);
      mkdirSync(bareDir);
      const bare = start(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), BARE_SERVER_ROLE, bareDir],
        {},
        true,
      );
      children.push(bare);
      const barePort = Number(await withTimeout(firstLine(bare), 30_000, 'the bare server to start'));
      const got = join(dir, 'got.bin');

      // rounds alternate the four transfers, so that a busy moment of the machine does not hit one kind only
      const seconds = { up: [] as number[], down: [] as number[], put: [] as number[], get: [] as number[] };
      for (let round = 1; round <= ROUNDS; round++) {
        report.progress(`round ${round}/${ROUNDS}: scp upload`);
        seconds.up.push(
          await timed(async () => {
            const source = await shared.prepareTreeSource(file, false);
            await client.uploadTree(connection, DEVICE, `${remote}/`, source);
          }),
        );
        await check(join(remote, 'payload.bin'), sha, 'the uploaded copy');
        report.progress(`round ${round}/${ROUNDS}: scp download`);
        seconds.down.push(
          await timed(async () => {
            const writer = new shared.TreeWriter({
              placeRoot: async (r) => shared.placeEntry(`${back}/`, r.name, true),
            });
            await client.downloadTree(connection, DEVICE, join(remote, 'payload.bin'), false, writer);
          }),
        );
        await check(join(back, 'payload.bin'), sha, 'the downloaded copy');
        report.progress(`round ${round}/${ROUNDS}: plain HTTP PUT and GET`);
        seconds.put.push(await timed(() => httpPut(`http://127.0.0.1:${barePort}/payload.bin`, file)));
        await check(join(bareDir, 'payload.bin'), sha, 'the PUT copy');
        seconds.get.push(await timed(() => httpGet(`http://127.0.0.1:${barePort}/payload.bin`, got)));
        await check(got, sha, 'the GET copy');
      }
      const heartbeatDisconnects = await disconnects.stop();
      const up = Math.min(...seconds.up);
      const down = Math.min(...seconds.down);
      const put = Math.min(...seconds.put);
      const get = Math.min(...seconds.get);

      const mbs = (seconds: number): number => SIZE / 1e6 / seconds;
      const samples = ROUNDS;
      report.figure('scp_upload_mb_s', mbs(up), { unit: 'MB/s', samples });
      report.figure('scp_download_mb_s', mbs(down), { unit: 'MB/s', samples });
      report.figure('http_put_mb_s', mbs(put), { unit: 'MB/s', samples });
      report.figure('http_get_mb_s', mbs(get), { unit: 'MB/s', samples });
      report.figure('upload_vs_put_ratio', put / up, { goal: '>=0.5' });
      report.figure('download_vs_put_ratio', put / down, { goal: '>=0.5' });
      report.figure('heartbeat_disconnects', heartbeatDisconnects, { goal: '=0' });
    });
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
  const missed = report.missed();
  if (missed.length > 0) report.progress(`missed goals: ${missed.join(', ')}`);
}

/** The baseline: PUT writes the body to a file, GET streams a file; prints its port on stdout. */
async function bareServer(dir: string): Promise<void> {
  const server = createServer((req, res) => {
    const path = join(dir, (req.url ?? '/x').slice(1));
    if (req.method === 'PUT') {
      pipeline(req, createWriteStream(path)).then(
        () => res.end('ok'),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), res).catch(() => res.destroy());
    }
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
  process.once('SIGTERM', () => process.exit(0));
}

function httpPut(url: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    createReadStream(file, { highWaterMark: 1024 * 1024 })
      .on('error', reject)
      .pipe(req);
  });
}

function httpGet(url: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(url, (res) => pipeline(res, createWriteStream(file)).then(resolve, reject))
      .on('error', reject)
      .end();
  });
}

async function writeRandomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  const block = Buffer.allocUnsafe(64 * 1024 * 1024);
  for (let written = 0; written < size; written += block.length) {
    const part = block.subarray(0, Math.min(block.length, size - written));
    randomFillSync(part);
    hash.update(part);
    if (!out.write(part)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return hash.digest('hex');
}

async function check(path: string, sha: string, what: string): Promise<void> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== sha) throw new Error(`${what} does not match the original's SHA-256`);
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** A child whose stdout this script reads (`readStdout`) or passes on to stderr. */
function start(command: string, args: string[], env: Record<string, string>, readStdout = false): ChildProcess {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    // fd 2: what a child prints goes to our stderr, never among the figures on stdout
    stdio: ['ignore', readStdout ? 'pipe' : 2, 'inherit'],
  });
  child.on('error', (err) => process.stderr.write(`${command}: ${err.message}\n`));
  return child;
}
