/**
 * Issue 16, transport: the control plane serves HTTPS and WSS with its own certificate (here from a private CA
 * made with openssl); a real droplet connects over WSS trusting that CA through --ca-file and is refused with a
 * clear error without it; a renewed certificate is picked up by the running server while existing links stay up;
 * plain http:// to a server that is not on loopback is refused unless --insecure; the CLI takes --ca-file too.
 */
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { perAttempt } from './helpers/per-attempt.js';
import { REPO } from './helpers/processes.js';
import { TlsWorld } from './helpers/tls-world.js';
import type { ServerCertificate } from './helpers/test-certificates.js';

const world = new TlsWorld();
let live: ServerCertificate;
let renewed: ServerCertificate;

const install = (certificate: ServerCertificate): void => {
  copyFileSync(certificate.keyFile, live.keyFile);
  copyFileSync(certificate.certFile, live.certFile);
};

beforeAll(async () => {
  world.prepare();
  live = { certFile: join(world.work, 'live.crt'), keyFile: join(world.work, 'live.key') };
  const first = world.certificate('first');
  renewed = world.certificate('renewed');
  install(first);
  await world.startServer({ tls: live });
}, 60_000);
afterAll(() => world.stop());

/** The common name of the certificate a new TLS handshake with the server gets. */
function servedCommonName(): Promise<string> {
  const { port } = new URL(world.server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: world.ca.pem }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tsx = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: join(REPO, 'tsconfig.check.json') };
  for (const key of Object.keys(env)) if (key.startsWith('OUTPOST_')) delete env[key];
  const child = spawn(
    process.execPath,
    ['--import', tsx, join(REPO, 'control-plane/src/cli/main.ts'), '--server', world.server.url, ...args],
    { cwd: REPO, env: { ...env, OUTPOST_API_KEY: TEST_ADMIN_KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the control plane over HTTPS and WSS', () => {
  it('serves https:// and an agent given the CA with --ca-file connects over WSS', async (context) => {
    expect(world.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const device = perAttempt(context, 'projects/tls/regions/eu/devices/trusting');
    const root = await world.provision(device, world.server.url);
    const agent = world.startAgent(root, ['--ca-file', world.ca.certFile]);
    await world.waitOnline(device);
    // the server counts the device online at its hello, before the agent has read the welcome and logged it
    await expect.poll(() => agent.output(), { timeout: 20_000 }).toContain('connected to the control plane');
    expect(agent.output()).toContain('wss://127.0.0.1');
  }, 60_000);

  it('refuses an agent without the CA with a clear error, and it never comes online', async (context) => {
    const device = perAttempt(context, 'projects/tls/regions/eu/devices/untrusting');
    const agent = world.startAgent(await world.provision(device, world.server.url));
    await expect
      .poll(() => agent.output(), { timeout: 30_000 })
      .toMatch(/TLS certificate is not trusted: give the CA that signed it with --ca-file/);
    expect(agent.output()).toMatch(/unable to verify the first certificate/);
    expect(world.server.gateway.isOnline(device)).toBe(false);
    await agent.stop();
  }, 60_000);

  it('picks up a renewed certificate when its files change, and links already open stay up', async (context) => {
    const device = perAttempt(context, 'projects/tls/regions/eu/devices/long-lived');
    const agent = world.startAgent(await world.provision(device, world.server.url), ['--ca-file', world.ca.certFile]);
    await world.waitOnline(device);
    await expect.poll(() => agent.output(), { timeout: 20_000 }).toContain('connected to the control plane');
    expect(await servedCommonName()).toBe('first');

    install(renewed);
    await expect.poll(servedCommonName, { timeout: 15_000 }).toBe('renewed');
    // a few heartbeats (1 s) later the link opened under the old certificate is still the same, alive link
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(world.server.gateway.isOnline(device)).toBe(true);
    expect(agent.output()).not.toMatch(/lost the link|cannot connect/);
    expect(agent.output().match(/connected to the control plane/g)).toHaveLength(1);

    // and a new agent handshakes with the renewed certificate
    const next = perAttempt(context, 'projects/tls/regions/eu/devices/after-renewal');
    world.startAgent(await world.provision(next, world.server.url), ['--ca-file', world.ca.certFile]);
    await world.waitOnline(next);
  }, 90_000);

  it('the CLI talks to it with --ca-file, and says why it cannot without', async (context) => {
    const listed = perAttempt(context, 'projects/tls/regions/eu/devices/listed');
    await world.admin.create('projects/tls/regions/eu', 'devices', { name: listed });
    const trusted = await cli([
      '--ca-file',
      world.ca.certFile,
      '-o',
      'json',
      'devices',
      'list',
      'devices',
      '--parent',
      'projects/tls/regions/eu',
    ]);
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(listed);

    const untrusted = await cli(['devices', 'list', 'devices', '--parent', 'projects/tls/regions/eu']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/unable to verify the first certificate/);
  }, 60_000);
});

describe('plain http:// to a server that is not on loopback', () => {
  it('is refused at start without --insecure, and warned at every connect with it', async (context) => {
    const device = perAttempt(context, 'projects/tls/regions/eu/devices/plain');
    // 0.0.0.0 is no loopback name; nothing listens on its port 9, so each attempt fails at once and is retried
    const root = await world.provision(device, 'http://0.0.0.0:9');
    const refused = world.startAgent(root);
    expect((await refused.exited).code).toBe(78);
    expect(refused.output()).toContain(
      'refusing http:// to 0.0.0.0:9: the device credential would cross the network in the clear',
    );

    const insecure = world.startAgent(root, ['--insecure']);
    await expect
      .poll(() => insecure.output().match(/connecting without TLS to a server that is not on loopback/g)?.length ?? 0, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(2);
    await insecure.stop();
  }, 60_000);
});
