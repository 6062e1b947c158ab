import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Device } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { answerHeartbeats } from '../../control-plane/test/helpers/answer-heartbeats.js';
import { perAttempt } from './helpers/per-attempt.js';
import { DROPLET, runCli, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';
import { waitForDevice } from './helpers/wait-for.js';

const HEARTBEAT_SECONDS = 1;
const parent = 'projects/fleet/regions/eu-west';
let server: TestServer;
const agents: RunningProcess[] = [];
const roots: string[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { heartbeatSeconds: HEARTBEAT_SECONDS });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.stop('SIGKILL')));
});
afterAll(async () => {
  await server.dispose();
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

const newRoot = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-device-'));
  roots.push(dir);
  return dir;
};

async function provision(name: string, serverUrl = server.url): Promise<string> {
  const root = newRoot();
  const result = await runCli(['devices', 'provision', name, '--device-root', root], {
    OUTPOST_SERVER: serverUrl,
    OUTPOST_API_KEY: TEST_ADMIN_KEY,
  });
  expect(result.code, result.stderr).toBe(0);
  return root;
}

function startAgent(root: string, extra: string[] = []): RunningProcess {
  const agent = startProcess(DROPLET, [
    '--device-root',
    root,
    '--metrics-interval',
    '1',
    '--log-level',
    'warn',
    ...extra,
  ]);
  agents.push(agent);
  return agent;
}

/** A bearer credential for the device (replacing its key pair), for a connection made by hand. */
const bearerCredential = async (name: string): Promise<string> =>
  (await server.admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, { body: {} })).credential;

const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';
const offline = (d: Device): boolean => d.status?.connectionStatus === 'DISCONNECTED';

describe('a real droplet agent', () => {
  it('provisions, connects, and fills deviceInfo from systeminformation', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-a`);
    const root = await provision(name);
    expect(statSync(join(root, 'config', 'identity', 'private-key.pem')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(root, 'config', 'droplet.json'), 'utf8'))).toMatchObject({ deviceName: name });
    startAgent(root);
    const device = await waitForDevice(
      server.admin,
      name,
      // the inventory's file systems come only from the collector process (dist/inventory-collector.js)
      (d) =>
        online(d) &&
        d.status?.deviceInfo?.hardwareInformation?.fileSystems !== undefined &&
        d.status?.metrics !== undefined,
      45_000, // the droplet starts through tsx: on a loaded machine that alone may take half a minute
    );
    const info = device.status!.deviceInfo!;
    expect(info.operatingSystem).toBe('Linux');
    expect(info.kernelVersion).toBeTruthy();
    expect(info.hardwareInformation?.memory?.totalBytes).toBeGreaterThan(0);
    expect(info.hardwareInformation?.memory?.modules?.length).toBeGreaterThan(0);
    expect(info.hardwareInformation?.fileSystems?.map((fs) => fs.mount)).toContain('/');
    expect(info.usage?.memoryTotalBytes).toBeGreaterThan(0);
    expect(device.status?.connectionStatusChangeTime).toBeTruthy();
  });

  it('SIGKILL of the agent makes the device DISCONNECTED', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-kill`);
    const agent = startAgent(await provision(name));
    await waitForDevice(server.admin, name, online, 45_000); // the droplet starts through tsx
    await agent.stop('SIGKILL');
    // not bound to two heartbeats: on a loaded machine the watch alone may take longer than that to answer
    await waitForDevice(server.admin, name, offline);
  });

  it('pushes spec changes to the agent, which keeps them under {device_root}/data', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-spec`);
    const root = await provision(name);
    startAgent(root);
    await waitForDevice(server.admin, name, online, 45_000); // the droplet starts through tsx
    await server.admin.update(
      { name, spec: { sshConfig: { disableSshPassword: true } } },
      { updateMask: 'spec.sshConfig' },
    );
    const file = join(root, 'data', 'desired-device.json');
    await expect
      .poll(
        () => {
          try {
            return JSON.parse(readFileSync(file, 'utf8')) as { spec?: { sshConfig?: unknown } };
          } catch {
            return undefined;
          }
        },
        { timeout: 10_000 },
      )
      .toMatchObject({ spec: { sshConfig: { disableSshPassword: true } } });
  });

  it('a device that connects twice keeps only the newest connection', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-twice`);
    await provision(name);
    const credential = await bearerCredential(name);
    const first = await openRaw(credential);
    await waitForDevice(server.admin, name, online, 45_000); // the droplet starts through tsx
    const firstClosed = new Promise<number>((resolve) => first.on('close', (code) => resolve(code)));
    const second = await openRaw(credential);
    expect(await firstClosed).toBe(4001);
    expect(server.gateway.isOnline(name)).toBe(true);
    second.close();
    await waitForDevice(server.admin, name, offline);
  });

  it('registers itself with a project provisioning token', async (context) => {
    const token = (
      await server.admin.request<{ token: string }>('POST', `/v1/${parent}/devices:createProvisioningToken`, {
        body: {},
      })
    ).token;
    const deviceId = perAttempt(context, 'self-reg');
    const root = newRoot();
    startAgent(root, [
      '--server',
      server.url,
      '--provisioning-token',
      token,
      '--project',
      'fleet',
      '--region',
      'eu-west',
      '--device-id',
      deviceId,
    ]);
    const device = await waitForDevice(server.admin, `${parent}/devices/${deviceId}`, online);
    expect(device.name).toBe(`${parent}/devices/${deviceId}`);
    // the token only registers into its own project and region
    const wrong = await fetch(`${server.url}/v1/projects/other/regions/eu-west/devices:register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deviceId: 'intruder' }),
    });
    expect(wrong.status).toBe(403);
  });
});

describe('bad input on the agent link', () => {
  it('refuses wrong and revoked credentials with 401, changing nothing', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-cred`);
    await provision(name);
    const credential = await bearerCredential(name);
    expect(await upgradeStatus('odc_wrong')).toBe(401);
    expect(await upgradeStatus(undefined)).toBe(401);
    await server.admin.request('POST', `/v1/${name}:revokeCredential`, { body: {} });
    expect(await upgradeStatus(credential)).toBe(401);
    expect((await server.admin.get<Device>(name)).status?.connectionStatus).toBe('DISCONNECTED');
  });

  it('answers malformed and oversized messages with an error and keeps serving', async (context) => {
    const name = perAttempt(context, `${parent}/devices/dev-bad`);
    await provision(name);
    const credential = await bearerCredential(name);
    const ws = await openRaw(credential);
    const replies: { type: string; message?: string }[] = [];
    ws.on('message', (data) => replies.push(JSON.parse(data.toString()) as { type: string }));
    ws.send('{not json');
    ws.send(JSON.stringify({ type: 'status', seq: 'x' }));
    ws.send(JSON.stringify({ type: 'nonsense' }));
    ws.send(JSON.stringify({ type: 'status', seq: 1, deviceInfo: { osVersion: 'x'.repeat(1100 * 1024) } }));
    await expect.poll(() => replies.filter((r) => r.type === 'error').length, { timeout: 20_000 }).toBe(4);
    expect(replies.filter((r) => r.type === 'error').map((r) => r.message)).toEqual([
      expect.stringContaining('not JSON'),
      expect.stringContaining('seq'),
      expect.stringContaining('unknown'),
      expect.stringContaining('too large'),
    ]);
    ws.send(JSON.stringify({ type: 'status', seq: 2, deviceInfo: { osVersion: '9.9.9' } }));
    await waitForDevice(server.admin, name, (d) => d.status?.deviceInfo?.osVersion === '9.9.9');
    ws.close();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('control plane restart', () => {
  it('every agent reconnects by itself and nothing reported is lost', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-restart-'));
    roots.push(dataDir);
    let cp = await startTestServer({}, { dataDir, heartbeatSeconds: HEARTBEAT_SECONDS });
    const port = Number(new URL(cp.url).port);
    const names = [0, 1, 2].map((i) => `${parent}/devices/restart-${i}`);
    for (const name of names) startAgent(await provision(name, cp.url));
    // the full inventory (read by the short-lived collector after the quick /proc facts), not the facts alone
    for (const name of names)
      await waitForDevice(
        cp.admin,
        name,
        (d) => online(d) && d.status?.deviceInfo?.hardwareInformation?.fileSystems !== undefined,
        60_000,
      );
    const before = await Promise.all(names.map((n) => cp.admin.get<Device>(n)));

    await cp.close();
    cp = await startTestServer({}, { dataDir, port, heartbeatSeconds: HEARTBEAT_SECONDS });
    for (const [i, name] of names.entries()) {
      const after = await waitForDevice(cp.admin, name, online, 60_000);
      expect(after.status?.deviceInfo?.kernelVersion).toBe(before[i]!.status?.deviceInfo?.kernelVersion);
      expect(after.status?.deviceInfo?.hardwareInformation).toEqual(before[i]!.status?.deviceInfo?.hardwareInformation);
    }
    await cp.close();
    // three droplets started through tsx, then reconnecting: at load 30 this took over a minute
  }, 240_000);
});

/** A link made by hand that answers heartbeats (1 s here): only what a test does to it may close it. */
function openRaw(credential: string): Promise<WebSocket> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/agent:connect`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  answerHeartbeats(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function upgradeStatus(credential: string | undefined): Promise<number> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/agent:connect`, {
    headers: credential ? { authorization: `Bearer ${credential}` } : {},
  });
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', () => undefined);
  });
}
