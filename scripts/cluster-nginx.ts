import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/**
 * The nginx configuration in front of control-plane replicas (issue 23): round robin over the replicas, the
 * WebSocket upgrade for agent links and remote terminals, long reads for watch streams, no request buffering for
 * uploads. README "Running several control planes" shows it for three replicas; scripts/cluster.ts runs it.
 */
export function clusterNginxSite(listenPort: number, replicaPorts: readonly number[]): string {
  return [
    'map $http_upgrade $connection_upgrade {',
    '    default upgrade;',
    "    ''      close;",
    '}',
    '',
    'upstream outpost_replicas {',
    ...replicaPorts.map((port) => `    server 127.0.0.1:${port};`),
    '}',
    '',
    'server {',
    `    listen 127.0.0.1:${listenPort};`,
    '    client_max_body_size 0;',
    '    location / {',
    '        proxy_pass http://outpost_replicas;',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Upgrade $http_upgrade;',
    '        proxy_set_header Connection $connection_upgrade;',
    '        proxy_set_header Host $host;',
    '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '        proxy_buffering off;',
    '        proxy_request_buffering off;',
    '        proxy_read_timeout 1h;',
    '        proxy_send_timeout 1h;',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** A whole nginx.conf for an unprivileged run from `dir` (pid, logs and temp files there), in the foreground. */
export function clusterNginxConf(dir: string, site: string): string {
  return [
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    'daemon off;',
    `error_log ${dir}/error.log;`,
    'events { worker_connections 4096; }',
    'http {',
    `  access_log ${dir}/access.log;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp}_temp_path ${dir}/${temp}-temp;`),
    site,
    '}',
    '',
  ].join('\n');
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * nginx binds its port after spawn returns: whoever hands out the address waits for it to answer first (a
 * request sent at once was refused on a loaded CI machine).
 */
export async function waitUntilNginxAccepts(port: number, nginx: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (nginx.exitCode !== null || nginx.signalCode !== null)
      throw new Error(`nginx exited (${nginx.exitCode ?? nginx.signalCode}) before listening on ${port}`);
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
