/**
 * Issue 18, items 3 and 4 end to end: a real control plane, a real droplet (from its sources) under a --system-root
 * folder, and a tiny real HTTP CONNECT proxy on 127.0.0.1. The device takes spec.proxyConfig and reconnects through
 * the proxy, keeping it once the link comes back; a proxy that leads nowhere is rolled back after the grace period
 * and the device, back online, reports why. SSH and logging settings set through the API land in the simulated
 * system's files, and the status says sshd was not asked.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, Device } from '@outpost/shared';
import { ConnectProxy } from '../../agent/test/config-apply/proxy/connect-proxy.js';
import { TlsWorld, online } from './helpers/tls-world.js';
import { waitForDevice } from './helpers/wait-for.js';

const DEVICE = 'projects/cfg/regions/eu/devices/behind-proxy';
const world = new TlsWorld();
let proxy: ConnectProxy;
let systemRoot: string;

const condition = (d: Device, type: string): Condition | undefined =>
  d.status?.conditions?.find((c) => c.type === type);

async function update(spec: Record<string, unknown>, mask: string): Promise<number> {
  const device = await world.admin.update<Device>({ name: DEVICE, spec }, { updateMask: mask });
  return device.metadata?.generation ?? 0;
}

beforeAll(async () => {
  world.prepare();
  await world.startServer();
  proxy = await ConnectProxy.start();
  const root = await world.provision(DEVICE, world.server.url);
  systemRoot = join(world.work, 'system');
  mkdirSync(systemRoot, { recursive: true });
  world.startAgent(root, ['--system-root', systemRoot]);
  await world.waitOnline(DEVICE);
}, 60_000);
afterAll(async () => {
  await world.stop();
  await proxy?.close();
});

describe('proxy, SSH and logging configuration on a real droplet', () => {
  it('reconnects through the proxy of spec.proxyConfig and keeps it once the link comes back', async () => {
    expect(proxy.tunnels).toBe(0);
    const generation = await update(
      { proxyConfig: { httpProxy: proxy.url }, networkConfigGraceSeconds: 30 },
      'spec.proxyConfig,spec.networkConfigGraceSeconds',
    );
    const device = await waitForDevice(
      world.admin,
      DEVICE,
      (d) => online(d) && d.status?.configuration?.proxy?.appliedGeneration === generation,
      30_000,
    );
    expect(condition(device, 'ProxyConfigured')).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(device.status?.configuration?.proxy).toMatchObject({ desiredGeneration: generation, source: 'desired' });
    expect(proxy.requests).toContain(new URL(world.server.url).host);
    expect(proxy.tunnels).toBeGreaterThanOrEqual(1);

    // the link lives in the tunnel: cut it, and the device comes back through the proxy again
    const tunnels = proxy.tunnels;
    proxy.cutTunnels();
    await expect.poll(() => proxy.tunnels, { timeout: 20_000 }).toBeGreaterThan(tunnels);
    await world.waitOnline(DEVICE);
  }, 60_000);

  it('rolls back a proxy that leads nowhere after the grace period, and reports it once back online', async () => {
    const kept = (await world.admin.get<Device>(DEVICE)).status?.configuration?.proxy?.appliedGeneration;
    const started = Date.now();
    const generation = await update(
      { proxyConfig: { httpProxy: 'http://127.0.0.1:9' }, networkConfigGraceSeconds: 10 },
      'spec.proxyConfig,spec.networkConfigGraceSeconds',
    );
    const device = await waitForDevice(
      world.admin,
      DEVICE,
      (d) => online(d) && condition(d, 'ProxyConfigured')?.reason === 'RolledBack',
      60_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(condition(device, 'ProxyConfigured')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(`did not come back within 10 s of applying proxy generation ${generation}`),
    });
    expect(device.status?.configuration?.proxy).toMatchObject({
      desiredGeneration: generation,
      appliedGeneration: kept,
      source: 'known-good',
    });
  }, 90_000);

  it('writes the SSH and journald settings of the spec under the system root', async () => {
    const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
    const blob = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from('ssh-ed25519'),
      Buffer.from([0, 0, 0, 32]),
      der.subarray(der.length - 32),
    ]);
    const key = `ssh-ed25519 ${blob.toString('base64')} ops@example`;
    const generation = await update(
      {
        sshConfig: { sshAuthorized: [{ sshaKey: key }], disableSshPassword: true, ipAllowList: ['10.0.0.0/8'] },
        loggingConfig: { journalSystemMaxUse: '200M', agentLogLevel: 'debug' },
      },
      'spec.sshConfig,spec.loggingConfig',
    );
    const device = await waitForDevice(
      world.admin,
      DEVICE,
      (d) =>
        d.status?.configuration?.ssh?.appliedGeneration === generation &&
        d.status.configuration.logging?.appliedGeneration === generation,
      30_000,
    );
    expect(condition(device, 'SshConfigured')).toMatchObject({
      status: 'True',
      message: expect.stringContaining('sshd was not asked'),
    });
    expect(condition(device, 'LoggingConfigured')).toMatchObject({ status: 'True', reason: 'Applied' });
    const dropIn = readFileSync(join(systemRoot, 'etc/ssh/sshd_config.d/90-outpost.conf'), 'utf8');
    expect(dropIn).toContain('PasswordAuthentication no\n');
    expect(dropIn).toContain('AllowUsers *@10.0.0.0/8\n');
    expect(readFileSync(join(systemRoot, 'etc/ssh/outpost/authorized_keys/root'), 'utf8')).toContain(key);
    expect(readFileSync(join(systemRoot, 'etc/systemd/journald.conf.d/90-outpost.conf'), 'utf8')).toContain(
      'SystemMaxUse=200M\n',
    );
  }, 60_000);
});
