import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './preflight.js';
import { cpuSecondsOf, freePort } from './process-stats.js';
import { readmeNginxSite } from './readme-nginx-site.js';
import { sleep } from './time.js';

/** Debian's nginx, terminating TLS in front of a control plane on loopback (README "Behind nginx"). */
export interface BenchNginx {
  url: string;
  /** CPU seconds (user + system) of the master and its workers so far */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export const NGINX_BINARY = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) =>
  existsSync(path),
);

/** Worker processes: each holds two descriptors per link (the device's and the upstream's). */
const WORKERS = 2;

/**
 * Starts nginx from `dir` with README.md's site (listening with reuseport, so the kernel spreads the links over
 * the workers), proxying to `upstreamPort`, with the certificate files given; resolves once it answers.
 * Each worker may hold `maxFilesPerWorker` descriptors (at most the open-files limit of this machine).
 */
export async function startBenchNginx(
  dir: string,
  upstreamPort: number,
  certificate: { certFile: string; keyFile: string },
  maxFilesPerWorker: number,
): Promise<BenchNginx> {
  if (NGINX_BINARY === undefined) throw new Error('nginx is not installed (apt-get install nginx)');
  const listenPort = await freePort();
  const site = readmeNginxSite(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), {
    listenPort,
    upstreamPort,
    certFile: certificate.certFile,
    keyFile: certificate.keyFile,
    reusePort: true,
  });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'user root;', // the run's folder (certificate key included) is root's
      `worker_processes ${WORKERS};`,
      `worker_rlimit_nofile ${maxFilesPerWorker};`,
      `pid ${dir}/nginx.pid;`,
      'daemon off;',
      `events { worker_connections ${maxFilesPerWorker - 64}; }`,
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp}_temp_path ${dir}/${temp}-temp;`),
      site,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-p', dir, '-e', join(dir, 'nginx-error.log'), '-c', conf];
  const check = spawnSync(NGINX_BINARY, ['-t', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t failed: ${check.stderr}`);
  const master = spawn(NGINX_BINARY, args, { stdio: 'ignore' });
  const masterPid = master.pid ?? 0;
  const pids = (): number[] => [masterPid, ...childrenOf(masterPid)];
  // however this process ends, neither the master nor a worker outlives it
  const kill = (): void => {
    for (const pid of pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  };
  process.once('exit', kill);
  let exit: string | undefined;
  master.once('exit', (code, signal) => {
    exit = `nginx exited (code ${code}, signal ${signal})`;
    process.off('exit', kill);
  });
  const deadline = performance.now() + 30_000;
  while (childrenOf(masterPid).length < WORKERS || !(await answers(listenPort))) {
    if (exit !== undefined) throw new Error(`${exit}: ${readLog(dir)}`);
    if (performance.now() > deadline) throw new Error(`nginx did not answer within 30 s: ${readLog(dir)}`);
    await sleep(100);
  }
  return {
    url: `https://127.0.0.1:${listenPort}`,
    cpuSeconds: () => pids().reduce((sum, pid) => sum + cpuSecondsOf(pid), 0),
    async stop() {
      if (exit !== undefined) return;
      const exited = new Promise<void>((resolve) => master.once('exit', () => resolve()));
      master.kill('SIGTERM'); // nginx's fast shutdown: the workers close their connections and exit
      await Promise.race([exited, sleep(10_000)]);
      if (exit === undefined) kill();
    },
  };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((field) => field.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'nginx-error.log'), 'utf8').slice(-2000);
  } catch {
    return '(no error log)';
  }
}
