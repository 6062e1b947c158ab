/**
 * npm run cluster -- --replicas 3 [--port 8080]: a local PostgreSQL in a temporary folder, N control-plane
 * replicas on it and Debian's nginx in front (round robin, WebSocket upgrade). Prints one JSON line with the
 * address, the admin key and the replicas, then runs until SIGINT or SIGTERM, which stops everything and removes
 * the folder. Needs `npm run build`, PostgreSQL (apt-get install postgresql) and nginx (apt-get install nginx).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CONTROL_PLANE_NODE_FLAGS } from '../control-plane/src/server/node-flags.js';
import { freePort, startPostgresCluster } from '../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../control-plane/test/helpers/postgres-cluster.js';
import { clusterNginxConf, clusterNginxSite, waitUntilNginxAccepts } from './cluster-nginx.js';

const REPO = new URL('..', import.meta.url).pathname;
const SERVER = join(REPO, 'control-plane/dist/server/main.js');
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

function fail(message: string): never {
  process.stderr.write(`cluster: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: { replicas: { type: 'string', default: '3' }, port: { type: 'string', default: '8080' } },
});
const replicas = Number(values.replicas);
const port = Number(values.port);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 32)
  fail('--replicas must be a whole number from 1 to 32');
if (!Number.isInteger(port) || port < 1 || port > 65535) fail('--port must be a port number');
if (!existsSync(SERVER)) fail(`${SERVER} is missing: run "npm run build" first`);
if (NGINX === undefined) fail('nginx is not installed (apt-get install nginx)');

const adminKey = process.env['OUTPOST_ADMIN_KEY'] || `admin-${randomBytes(24).toString('hex')}`;
const work = mkdtempSync(join(tmpdir(), 'outpost-cluster-'));
let postgres: PostgresCluster | undefined;
const children: ChildProcess[] = [];
let stopping = false;

/** Stops the replicas and nginx, then PostgreSQL, removes the folders and exits; a second call leaves the first to it. */
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write('cluster: stopping\n');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  try {
    postgres?.stop();
  } catch (err) {
    process.stderr.write(`cluster: stopping PostgreSQL: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
// `on`, not `once`: Ctrl-C reaches this process from the terminal and again from npm, which forwards it; a second
// signal must not end the process with the default action while the first one's stop is still under way
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

/** Starts one replica; resolves with its port once it listens. */
function startReplica(database: string, index: number, replicaPort: number): Promise<number> {
  const dataDir = join(work, `replica-${index}`);
  mkdirSync(dataDir);
  const child = spawn(
    process.execPath,
    [
      ...CONTROL_PLANE_NODE_FLAGS,
      SERVER,
      '--port',
      String(replicaPort),
      '--data-dir',
      dataDir,
      // one artifact directory for all: any replica serves what was uploaded through another
      '--artifact-dir',
      join(work, 'artifacts'),
      '--database',
      database,
      '--trusted-proxies',
      '127.0.0.1',
    ],
    { env: { ...process.env, OUTPOST_ADMIN_KEY: adminKey }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (data: Buffer) => {
      if (output.length < 65_536) output += data.toString();
      if (/"msg":"listening"/.test(output)) resolve(replicaPort);
    });
    child.once('exit', (code, signal) => {
      if (!stopping) reject(new Error(`replica ${index} exited (${code ?? signal}):\n${output}`));
    });
  });
}

try {
  postgres = await startPostgresCluster();
  const database = postgres.createDatabase();
  const ports: number[] = [];
  // one after the other: the first creates the schema, and each start is quicker alone on a small machine
  for (let i = 1; i <= replicas; i++) ports.push(await startReplica(database, i, await freePort()));
  const dir = join(work, 'nginx');
  mkdirSync(dir);
  writeFileSync(join(dir, 'nginx.conf'), clusterNginxConf(dir, clusterNginxSite(port, ports)));
  const check = spawnSync(NGINX, ['-t', '-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {
    encoding: 'utf8',
  });
  if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
  const nginx = spawn(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], { stdio: 'inherit' });
  children.push(nginx);
  nginx.once('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`cluster: nginx exited (${code})\n`);
      void stop(1);
    }
  });
  await waitUntilNginxAccepts(port, nginx);
  process.stdout.write(
    `${JSON.stringify({
      url: `http://127.0.0.1:${port}`,
      adminKey,
      replicas: ports.map((p) => `http://127.0.0.1:${p}`),
      database,
      folder: work,
    })}\n`,
  );
} catch (err) {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  await stop(1);
}
