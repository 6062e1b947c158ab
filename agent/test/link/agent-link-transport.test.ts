import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { ConfigError } from '../../src/config/droplet-config.js';
import { AgentLink } from '../../src/link/agent-link.js';
import type { AgentLinkOptions } from '../../src/link/agent-link.js';
import { createTestCa, issueServerCertificate } from '../../../test/integration/helpers/test-certificates.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

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

/** A WSS endpoint with a certificate from a private CA; counts the hellos it receives. */
async function wssServer(): Promise<{ url: string; caPem: string; hellos: () => number }> {
  const dir = await tempDir();
  const ca = createTestCa(dir);
  const certificate = issueServerCertificate(ca, dir, 'server');
  const server: Server = createHttpsServer({
    cert: readFileSync(certificate.certFile),
    key: readFileSync(certificate.keyFile),
  });
  const sockets = new WebSocketServer({ server });
  let hellos = 0;
  sockets.on('connection', (socket) => socket.on('message', () => hellos++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.pem, hellos: () => hellos };
}

describe('AgentLink transport security', () => {
  it('refuses plain ws:// to a server that is not on loopback without --insecure', () => {
    expect(() => link('http://192.0.2.10:8080')).toThrow(ConfigError);
  });

  it('with --insecure, warns at every connect to a plain server that is not on loopback', async () => {
    // 0.0.0.0 is not a loopback name, yet nothing listens there: every attempt fails fast and is retried
    const { agentLink, log } = link('http://0.0.0.0:9', { security: { insecure: true } });
    agentLink.start();
    const warnings = (): number => log.messages().filter((m) => m.startsWith('connecting without TLS')).length;
    await expect.poll(warnings, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
  });

  it('says nothing about TLS for a loopback server', async () => {
    const { agentLink, log } = link('http://127.0.0.1:9');
    agentLink.start();
    await expect.poll(() => log.messages().filter((m) => m.startsWith('cannot connect')).length).toBeGreaterThan(1);
    expect(log.messages().join('\n')).not.toContain('without TLS');
  });

  it('connects over WSS trusting the CA given, and is refused with a clear error without it', async () => {
    const server = await wssServer();

    const refused = link(server.url);
    refused.agentLink.start();
    await expect
      .poll(() => refused.log.messages(), { timeout: 20_000 })
      .toContain(
        "the control plane's TLS certificate is not trusted: give the CA that signed it with --ca-file; retrying",
      );
    expect(server.hellos()).toBe(0);
    await refused.agentLink.stop();

    const trusted = link(server.url, { security: { ca: server.caPem } });
    trusted.agentLink.start();
    await expect.poll(server.hellos, { timeout: 20_000 }).toBe(1);
  });
});
