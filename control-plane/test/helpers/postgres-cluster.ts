import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';
import { postgresBinaries, postgresMissing } from './postgres-available.js';

export { postgresBinaries, postgresMissing } from './postgres-available.js';

/** A throwaway PostgreSQL cluster: its own data folder, loopback only, stopped and removed by `stop`. */
export interface PostgresCluster {
  /** the `postgres` database of the cluster */
  url: string;
  /** Creates an empty database in the cluster; its URL. */
  createDatabase(): string;
  stop(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server on a port `freePort` found free. Between that check and the server's bind another suite running
 * at the same time may take the port: then the server's log says so, and it is started again on another port.
 */
async function startOnFreePort(
  start: (port: number) => void,
  logFile: string,
  choosePort: () => Promise<number> = freePort,
): Promise<number> {
  const logged = (): string => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  for (let attempt = 1; ; attempt++) {
    const port = await choosePort();
    const before = logged().length;
    try {
      start(port);
      return port;
    } catch (err) {
      if (attempt >= 5 || !/Address already in use/.test(logged().slice(before))) throw err;
    }
  }
}

/** Whether process `pid` still runs (a zombie no longer does). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Stops the server of `data` as `pg_ctl stop -m immediate -w` does (SIGQUIT to the postmaster, then wait until it
 * is gone), but without a child process: pg_ctl start put the server in a session of its own, and a stop run as a
 * child in the caller's process group would be cut short by a second Ctrl-C to that group (npm run cluster),
 * leaving the server running.
 */
function stopServer(data: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return; // not running
  }
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${data}/postmaster.pid holds no process id`);
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    return; // already gone
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 60_000;
  while (running(pid)) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) did not stop within 60 s`);
    Atomics.wait(pause, 0, 0, 10);
  }
}

/**
 * initdb (as the `postgres` user: PostgreSQL refuses root) into a temporary folder, then pg_ctl start on a free
 * port of 127.0.0.1 with its socket in that folder. `durable: false` turns fsync off (tests); benchmarks keep
 * it on, as SQLite's synchronous=FULL.
 */
export async function startPostgresCluster(
  options: { durable?: boolean; choosePort?: () => Promise<number> } = {},
): Promise<PostgresCluster> {
  const missing = postgresMissing();
  if (missing !== undefined) throw new Error(`cannot start PostgreSQL: ${missing}`);
  const bin = postgresBinaries()!;
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const asPostgres = (command: string, args: string[]): void => {
    const result = spawnSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { encoding: 'utf8' });
    if (result.status !== 0) {
      const how =
        result.error?.message ?? (result.signal !== null ? `ended by ${result.signal}` : `exit ${result.status}`);
      throw new Error(`${command} failed (${how}): ${result.stderr || result.stdout}`);
    }
  };
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--locale=C', '-E', 'UTF8']);
  const start = (port: number): void => {
    const settings = [
      `-c listen_addresses=127.0.0.1`,
      `-k ${dir}`,
      `-p ${port}`,
      `-c max_connections=200`,
      ...(options.durable === false ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
    ];
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '120', '-o', settings.join(' '), 'start']);
  };
  const port = await startOnFreePort(start, join(dir, 'log'), options.choosePort);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    createDatabase: () => {
      const name = `t${++databases}`;
      const admin = new SyncPostgres(url);
      try {
        admin.query(`CREATE DATABASE ${name}`);
      } finally {
        admin.close();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop: () => {
      try {
        stopServer(data);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
