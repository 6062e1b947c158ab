import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterNginxConf, clusterNginxSite, waitUntilNginxAccepts } from '../../../scripts/cluster-nginx.js';
import { DROPLET, startProcess } from './processes.js';
import type { RunningProcess } from './processes.js';
import { simulatedDropletArgs } from './simulated-device.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

/** Starts the built droplet on a simulated device's root (helpers/simulated-device.ts). */
export function startDroplet(root: string): RunningProcess {
  return startProcess(DROPLET, simulatedDropletArgs(root));
}

/** Debian's nginx in front of the replicas (the README's site, scripts/cluster-nginx.ts), run from `dir`. */
export async function startNginx(
  dir: string,
  port: number,
  replicaPorts: readonly number[],
): Promise<{ stop(): Promise<void> }> {
  if (NGINX === undefined) throw new Error('nginx is not installed (apt-get install nginx)');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), clusterNginxConf(dir, clusterNginxSite(port, replicaPorts)));
  const args = ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`];
  const check = spawnSync(NGINX, ['-t', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
  const nginx = spawn(NGINX, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  await waitUntilNginxAccepts(port, nginx);
  return {
    stop: async () => {
      if (nginx.exitCode === null) nginx.kill('SIGTERM');
      await exited;
    },
  };
}
