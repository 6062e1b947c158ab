import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutpostClient } from '@outpost/shared';
import { clusterNginxConf, clusterNginxSite } from '../../../scripts/cluster-nginx.js';
import { DROPLET, startProcess } from './processes.js';
import type { RunningProcess } from './processes.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

/**
 * Creates the device through `admin`, issues its credential and writes the configuration of a simulated device
 * (file boot backend) in `root`, linked to `server`.
 */
export async function provisionDroplet(
  admin: OutpostClient,
  name: string,
  root: string,
  server: string,
): Promise<void> {
  await admin.create(name.slice(0, name.indexOf('/devices/')), 'devices', { name });
  const { credential } = await admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, {
    body: {},
  });
  mkdirSync(join(root, 'config'), { recursive: true });
  writeFileSync(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });
  writeFileSync(
    join(root, 'config', 'droplet.json'),
    JSON.stringify({ server, deviceName: name, bootBackend: 'file', factoryVersion: '1.0.0' }),
  );
}

/** Starts the built droplet on a provisioned device root. */
export function startDroplet(root: string): RunningProcess {
  return startProcess(DROPLET, [
    '--device-root',
    root,
    '--slot-size',
    '1M',
    '--log-level',
    'info',
    '--log-file',
    join(root, 'droplet.log'),
  ]);
}

/** Debian's nginx in front of the replicas (the README's site, scripts/cluster-nginx.ts), run from `dir`. */
export function startNginx(dir: string, port: number, replicaPorts: readonly number[]): { stop(): Promise<void> } {
  if (NGINX === undefined) throw new Error('nginx is not installed (apt-get install nginx)');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), clusterNginxConf(dir, clusterNginxSite(port, replicaPorts)));
  const args = ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`];
  const check = spawnSync(NGINX, ['-t', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
  const nginx = spawn(NGINX, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  return {
    stop: async () => {
      if (nginx.exitCode === null) nginx.kill('SIGTERM');
      await exited;
    },
  };
}
