import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { AgentLink } from '../../src/link/agent-link.js';
import type { AgentLinkOptions } from '../../src/link/agent-link.js';
import { proxyFor } from '../../src/config-apply/proxy/proxy-route.js';
import { parseProxySettings } from '../../src/config-apply/proxy/proxy-settings.js';
import type { ProxySettings } from '../../src/config-apply/proxy/proxy-settings.js';
import { createTestCa, issueServerCertificate } from '../../../test/integration/helpers/test-certificates.js';
import { ConnectProxy } from '../config-apply/proxy/connect-proxy.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { TestGateway } from '../helpers/test-gateway.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function settings(proxyConfig: unknown): ProxySettings {
  const parsed = parseProxySettings(proxyConfig);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.settings;
}

async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  cleanups.push(() => value.close());
  return value;
}

function link(server: string, options: Partial<AgentLinkOptions> = {}) {
  const log = capturedLogger();
  const agentLink = new AgentLink({
    server,
    credential: async () => 'secret-1',
    hello: () => ({ agentVersion: '9.9.9', bootId: 'boot-1' }),
    logger: log.logger,
    backoff: { baseMs: 20, capMs: 50 },
    ...options,
  });
  cleanups.push(() => agentLink.stop());
  return { agentLink, log };
}

describe('AgentLink through an HTTP CONNECT proxy', () => {
  it('tunnels the WebSocket through the proxy of proxyConfig.httpProxy', async () => {
    const gateway = await started(TestGateway.start());
    const proxy = await started(ConnectProxy.start());
    const chosen = settings({ httpProxy: proxy.url });
    const { agentLink } = link(gateway.url, { proxy: (target) => proxyFor(chosen, target) });
    agentLink.start();

    const connection = await gateway.connection(0);
    await connection.waitFor('hello');
    expect(proxy.requests).toEqual([new URL(gateway.url).host]);
    expect(proxy.tunnels).toBe(1);
    expect(connection.authorization).toBe('Bearer secret-1');
  });

  it('runs TLS to the server inside the tunnel, checked against --ca-file', async () => {
    const dir = await tempDir();
    const ca = createTestCa(dir);
    const certificate = issueServerCertificate(ca, dir, 'server');
    const server = createHttpsServer({
      cert: readFileSync(certificate.certFile),
      key: readFileSync(certificate.keyFile),
    });
    const sockets = new WebSocketServer({ server });
    const hellos: string[] = [];
    sockets.on('connection', (socket) => socket.on('message', (data: Buffer) => hellos.push(data.toString())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const proxy = await started(ConnectProxy.start());
    // only httpsProxy: a wss:// server goes through it
    const chosen = settings({ httpsProxy: proxy.url });
    const { agentLink } = link(url, { security: { ca: ca.pem }, proxy: (target) => proxyFor(chosen, target) });
    agentLink.start();

    await expect.poll(() => hellos.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(JSON.parse(hellos[0] ?? '{}')).toMatchObject({ type: 'hello' });
    expect(proxy.requests).toEqual([new URL(url).host]);
  });

  it('sends user:password of the proxy URL as Proxy-Authorization, and says when the proxy refuses', async () => {
    const gateway = await started(TestGateway.start());
    const proxy = await started(ConnectProxy.start({ credentials: 'outpost:s3cret' }));

    const refused = link(gateway.url, { proxy: (target) => proxyFor(settings({ httpProxy: proxy.url }), target) });
    refused.agentLink.start();
    await expect
      .poll(() => refused.log.lines.find((l) => l.msg === 'cannot connect to the control plane; retrying')?.error, {
        timeout: 20_000,
      })
      .toContain('HTTP 407');
    await refused.agentLink.stop();
    expect(gateway.connections).toHaveLength(0);

    const withPassword = `http://outpost:s3cret@127.0.0.1:${proxy.port}`;
    const { agentLink } = link(gateway.url, {
      proxy: (target) => proxyFor(settings({ httpProxy: withPassword }), target),
    });
    agentLink.start();
    await (await gateway.connection(0)).waitFor('hello');
  });

  it('connects directly to a server NO_PROXY names', async () => {
    const gateway = await started(TestGateway.start());
    const proxy = await started(ConnectProxy.start());
    const chosen = settings({ httpProxy: proxy.url, noProxy: 'example.com, 127.0.0.0/8' });
    const { agentLink } = link(gateway.url, { proxy: (target) => proxyFor(chosen, target) });
    agentLink.start();
    await (await gateway.connection(0)).waitFor('hello');
    expect(proxy.requests).toEqual([]);
  });

  it('reconnect() drops a direct link and comes back through the proxy chosen now', async () => {
    const gateway = await started(TestGateway.start());
    const proxy = await started(ConnectProxy.start());
    let chosen = settings(undefined);
    const { agentLink } = link(gateway.url, { proxy: (target) => proxyFor(chosen, target) });
    agentLink.start();
    const first = await gateway.connection(0);
    first.welcome();
    await expect.poll(() => agentLink.connected).toBe(true);
    expect(proxy.requests).toEqual([]);

    chosen = settings({ httpProxy: proxy.url });
    agentLink.reconnect();
    await first.closed;
    await (await gateway.connection(1)).waitFor('hello');
    expect(proxy.tunnels).toBe(1);
  });
});
