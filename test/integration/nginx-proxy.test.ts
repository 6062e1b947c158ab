/**
 * Issue 16, transport: the README's nginx site configuration, run by Debian's nginx in front of a real control
 * plane on loopback. nginx terminates TLS (a private CA made with openssl); a real droplet connects through it
 * over WSS (the WebSocket upgrade), and the admin API, watch streams included, works through it. Skipped where
 * nginx is not installed, except under CI=true (.ci/run installs it), where its absence fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { OutpostClient } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchTrusting } from '../../control-plane/src/cli/trusted-ca.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { readmeNginxSite } from '../../scripts/bench/lib/readme-nginx-site.js';
import { REPO } from './helpers/processes.js';
import { TlsWorld, online } from './helpers/tls-world.js';
import { waitForDevice } from './helpers/wait-for.js';

const world = new TlsWorld();
const runsUnderCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');
const nginxBinary = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
if (nginxBinary === undefined && !runsUnderCi) {
  // the default reporter shows a skip only as a count: say why on stderr too
  console.warn('nginx proxy test skipped: nginx is not installed here (apt-get install nginx); CI=true requires it');
}

const readLog = (name: string): string => {
  try {
    return readFileSync(join(world.work, name), 'utf8');
  } catch {
    return '';
  }
};

/** A port nothing listens on now (nginx takes a port number, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(nginxBinary === undefined && !runsUnderCi)(
  'the README nginx configuration in front of the server',
  () => {
    let nginx: ChildProcess | undefined;
    let proxyUrl: string;
    let throughProxy: OutpostClient;

    beforeAll(async () => {
      expect(
        nginxBinary,
        'nginx must be installed under CI=true (.ci/run installs it): apt-get install nginx',
      ).toBeDefined();
      world.prepare();
      await world.startServer({ trustedProxies: ['127.0.0.1'] });
      const certificate = world.certificate('proxy');
      const listenPort = await freePort();
      const upstreamPort = Number(new URL(world.server.url).port);
      const site = readmeNginxSite(readFileSync(join(REPO, 'README.md'), 'utf8'), {
        listenPort,
        upstreamPort,
        ...certificate,
      });
      const dir = world.work;
      writeFileSync(
        join(dir, 'nginx.conf'),
        [
          'worker_processes 1;',
          `pid ${dir}/nginx.pid;`,
          'daemon off;',
          'events { worker_connections 256; }',
          'http {',
          `  access_log ${dir}/access.log;`,
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
            (temp) => `  ${temp}_temp_path ${dir}/${temp}-temp;`,
          ),
          site,
          '}',
          '',
        ].join('\n'),
      );
      const check = spawnSync(nginxBinary!, ['-t', '-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {
        encoding: 'utf8',
      });
      expect(check.status, `nginx -t: ${check.stderr}`).toBe(0);
      nginx = spawn(nginxBinary!, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {
        stdio: 'ignore',
      });
      proxyUrl = `https://127.0.0.1:${listenPort}`;
      throughProxy = new OutpostClient({
        server: proxyUrl,
        apiKey: TEST_ADMIN_KEY,
        fetch: fetchTrusting(world.ca.pem),
      });
      const askProxy = fetchTrusting(world.ca.pem);
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (status !== 401 && Date.now() < deadline) {
        status = await askProxy(`${proxyUrl}/v1/projects`).then(
          (r) => r.status,
          () => new Promise<number>((resolve) => setTimeout(() => resolve(0), 100)),
        );
      }
      expect(status, `nginx answers at ${proxyUrl}: ${readLog('error.log')}`).toBe(401);
    }, 60_000);

    afterAll(async () => {
      if (nginx !== undefined && nginx.exitCode === null) {
        const exited = new Promise((resolve) => nginx!.once('exit', resolve));
        nginx.kill('SIGTERM');
        await exited;
      }
      await world.stop();
    }, 30_000);

    it('passes the WebSocket upgrade: an agent with --ca-file connects through it over WSS', async () => {
      const device = 'projects/proxied/regions/eu/devices/behind-nginx';
      const agent = world.startAgent(await world.provision(device, proxyUrl), ['--ca-file', world.ca.certFile]);
      // followed by a watch stream through nginx: streamed answers are not buffered. A droplet started through tsx
      // may take half a minute on a loaded machine, and on PostgreSQL a lapse of the in-process server's 1.5 s
      // presence lease drops the link, which the agent then connects again after its backoff
      await waitForDevice(throughProxy, device, online, 90_000);
      // the server counts the device online before the agent has read its welcome and logged the connection
      await vi.waitFor(
        () => expect(agent.output()).toContain(`wss://127.0.0.1:${new URL(proxyUrl).port}/v1/agent:connect`),
        { timeout: 15_000, interval: 100 },
      );
      expect(world.server.gateway.isOnline(device)).toBe(true);

      // heartbeats go through nginx both ways: the link outlives several of them
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(agent.output()).not.toMatch(/lost the link|cannot connect/);
      // nginx logs the upgraded connection once it ends
      await agent.stop();
      await vi.waitFor(() => expect(readLog('access.log')).toMatch(/"GET \/v1\/agent:connect HTTP\/1\.1" 101 /), {
        timeout: 20_000,
      });
    }, 150_000);

    it('serves the REST API, refusing a wrong key as the server does', async () => {
      const devices = await throughProxy.request<{ devices?: { name: string }[] }>(
        'GET',
        '/v1/projects/proxied/regions/eu/devices',
      );
      expect(devices.devices?.map((d) => d.name)).toContain('projects/proxied/regions/eu/devices/behind-nginx');
      await expect(
        new OutpostClient({ server: proxyUrl, apiKey: 'opk_wrong', fetch: fetchTrusting(world.ca.pem) }).request(
          'GET',
          '/v1/projects',
        ),
      ).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    });
  },
);
