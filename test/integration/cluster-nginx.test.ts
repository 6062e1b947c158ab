/**
 * Issue 23, how a user runs it: `npm run cluster` (scripts/cluster.ts) as a real process: PostgreSQL, two
 * replicas, nginx in front. Through nginx, requests go round robin to both replicas, a watch sees every write
 * (whichever replica took it), and SIGTERM stops everything and removes the folder. The README's copy of the
 * nginx site is the one the script runs. Skipped without PostgreSQL or nginx, except under CI=true.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OutpostClient } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../control-plane/test/helpers/postgres-cluster.js';
import { clusterNginxSite } from '../../scripts/cluster-nginx.js';
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
  folder: string;
}

describe.skipIf(skipped)('npm run cluster: replicas behind nginx', () => {
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let started: Started;
  let admin: OutpostClient;

  beforeAll(async () => {
    const port = await freePort();
    const script = join(REPO, 'scripts/cluster.ts');
    child = spawn(process.execPath, ['--import', 'tsx', script, '--replicas', '2', '--port', String(port)], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
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
    if (child !== undefined && child.exitCode === null) child.kill('SIGTERM');
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

  it('stops everything on SIGTERM and removes its folder', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(started.folder)).toBe(false);
  });
});
