/**
 * Issue 23, how a user runs it: `npm run cluster` (scripts/cluster.ts) as a real process group, as a terminal
 * runs it: PostgreSQL, two replicas, nginx in front. Through nginx, requests go round robin to both replicas, a
 * watch sees every write (whichever replica took it), and Ctrl-C (SIGINT to the whole group) stops everything:
 * no process of the group is left, nginx, the replicas and PostgreSQL no longer listen, and the folders are
 * removed. The README's copy of the nginx site is the one the script runs. Skipped without PostgreSQL or nginx,
 * except under CI=true.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OutpostClient } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../control-plane/test/helpers/postgres-cluster.js';
import { until } from '../../control-plane/test/helpers/until.js';
import { accepts, clusterNginxSite } from '../../scripts/cluster-nginx.js';
import { clusterTestsSkipped, runsUnderCi } from './helpers/cluster-replicas.js';
import { perAttempt } from './helpers/per-attempt.js';
import { REPO } from './helpers/processes.js';

const nginxInstalled = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].some((path) => existsSync(path));
if (!nginxInstalled && !runsUnderCi) console.warn('cluster nginx test skipped: nginx is not installed here');
const skipped = clusterTestsSkipped('cluster nginx test') || (!nginxInstalled && !runsUnderCi);

interface Started {
  url: string;
  adminKey: string;
  replicas: string[];
  database: string;
  folder: string;
}

/** The command lines of the running processes, by pid (read from /proc); ended ones not yet reaped are left out. */
function processes(): Map<number, { args: string[]; group: number }> {
  const found = new Map<number, { args: string[]; group: number }>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // after the command name in parentheses: state, parent, process group
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.set(Number(entry), { args, group: Number(group) });
    } catch {
      // it ended while being read
    }
  }
  return found;
}

/** The folder of the PostgreSQL server listening on `port` (its data folder's parent), from its command line. */
function postgresFolder(port: number): string {
  for (const { args } of processes().values()) {
    const data = args[args.indexOf('-D') + 1];
    if (args.includes('-D') && data !== undefined && args.join(' ').includes(`-p ${port}`)) return dirname(data);
  }
  throw new Error(`no PostgreSQL server with -p ${port} running`);
}

const portOf = (url: string): number => Number(new URL(url).port);

describe.skipIf(skipped)('npm run cluster: replicas behind nginx', () => {
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let started: Started;
  let admin: OutpostClient;

  beforeAll(async () => {
    const port = await freePort();
    // its own process group, as a terminal's job: Ctrl-C signals every process of it
    child = spawn('npm', ['run', 'cluster', '--', '--replicas', '2', '--port', String(port)], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    started = await new Promise<Started>((resolve, reject) => {
      child.stdout?.on('data', (data: Buffer) => {
        output += data.toString();
        const line = output.split('\n').find((l) => l.startsWith('{"url"'));
        if (line !== undefined) resolve(JSON.parse(line) as Started);
      });
      child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
      void exited.then((code) => reject(new Error(`npm run cluster exited (${code}):\n${output}`)));
    });
    admin = new OutpostClient({ server: started.url, apiKey: started.adminKey });
  }, 180_000);

  afterAll(async () => {
    // npm, once its script ended on Ctrl-C, ends itself by the same signal: exitCode stays null then
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid, 'SIGTERM');
    }
    await exited;
  });

  it('balances over both replicas, and a watch through nginx sees the writes taken by either', async (context) => {
    const leaders = new Set<boolean>();
    for (let i = 0; i < 4; i++) {
      const health = (await (await fetch(`${started.url}/healthz`)).json()) as { cluster?: { leader: boolean } };
      leaders.add(health.cluster?.leader === true);
    }
    expect([...leaders].sort()).toEqual([false, true]); // round robin: the leader and the other one answered

    const controller = new AbortController();
    const watch = admin.stream<Record<string, unknown>>('POST', '/v1/deviceTypes:watch', {
      body: { type: 'STATELESS' },
      signal: controller.signal,
    });
    await watch.next();
    const names = ['one', 'two', 'three', 'four'].map((id) => perAttempt(context, `deviceTypes/${id}`));
    for (const name of names) await admin.create('', 'deviceTypes', { name, architecture: 'AMD64' });
    let seen = '';
    while (!names.every((name) => seen.includes(`"${name}"`))) {
      const next = await watch.next();
      if (next.done) throw new Error('the watch ended');
      seen += JSON.stringify(next.value);
    }
    controller.abort();
    await watch.return(undefined);
  });

  it('runs the nginx site the README shows', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const block = /<!-- cluster-nginx-site: scripts\/cluster-nginx\.ts -->\n```nginx\n([\s\S]*?)```/.exec(readme);
    expect(block?.[1]).toBe(clusterNginxSite(8080, [8081, 8082, 8083]));
  });

  it('stops everything on Ctrl-C and removes its folders', async () => {
    const postgresPort = portOf(started.database);
    const folders = [started.folder, postgresFolder(postgresPort)];
    const group = child.pid!;
    expect([...processes().values()].filter((p) => p.group === group).length).toBeGreaterThanOrEqual(4);
    process.kill(-group, 'SIGINT');
    // pressed again and again, as an impatient user does: no later one may cut the first one's cleanup short
    const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
    await until(() => output.includes('cluster: stopping') || ended(), 'the cluster script is stopping');
    while (!ended()) {
      try {
        process.kill(-group, 'SIGINT');
      } catch {
        break; // the group is gone
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await exited;
    expect(output).not.toContain('cluster: stopping PostgreSQL'); // which says that stopping it failed
    expect([...processes().values()].filter((p) => p.group === group).map((p) => p.args.join(' '))).toEqual([]);
    const ports = [portOf(started.url), ...started.replicas.map(portOf), postgresPort];
    expect(await Promise.all(ports.map(accepts))).toEqual(ports.map(() => false));
    expect(folders.filter((folder) => existsSync(folder))).toEqual([]);
  }, 120_000);
});
