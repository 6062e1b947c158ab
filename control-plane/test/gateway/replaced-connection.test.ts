import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { createDevice } from '../healthchecks/helpers/raw-agent.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { AgentSocket } from './helpers/agent-socket.js';

let server: TestServer;
const sockets: AgentSocket[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(async () => {
  await server.dispose();
});

async function connect(credential: string): Promise<AgentSocket> {
  const socket = await AgentSocket.connect(server.url, credential);
  sockets.push(socket);
  return socket;
}

async function waitForStatus(name: string, test: (device: Device) => boolean): Promise<Device> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const device = await server.admin.get<Device>(name);
    if (test(device)) return device;
    if (Date.now() > deadline) throw new Error(`timed out; last status ${JSON.stringify(device.status)}`);
    await sleep(20);
  }
}

const NOW = (): string => new Date().toISOString();

describe('a device that connects twice', () => {
  it('takes nothing more from the replaced connection, even while its close handshake is pending', async (context) => {
    const name = perAttempt(context, 'projects/p1/regions/eu/devices/twice');
    const credential = await createDevice(server, name);
    const replaced = await connect(credential);
    // the old peer stops reading, as one whose network went quiet: it never answers the server's close, so that
    // connection stays half open (the server's side waits for the handshake) while it can still send
    replaced.socket.pause();
    const current = await connect(credential);

    replaced.send({
      type: 'status',
      seq: 1,
      deviceInfo: { osVersion: 'from-the-replaced-connection' },
      conditions: [{ type: 'Stale', status: 'True', reason: 'Old', message: '', lastTransitionTime: NOW() }],
    });
    replaced.send({
      type: 'metrics',
      time: NOW(),
      cpu: { usagePercent: 99 },
      memory: { totalBytes: 100, usedBytes: 99 },
      storage: [],
      uptimeSeconds: 1,
    });
    await sleep(300); // loopback delivers in well under a millisecond
    current.send({ type: 'status', seq: 1, deviceInfo: { kernelVersion: 'from-the-current-connection' } });

    const device = await waitForStatus(
      name,
      (d) => d.status?.deviceInfo?.kernelVersion === 'from-the-current-connection',
    );
    expect(device.status?.deviceInfo?.osVersion).toBeUndefined();
    expect(device.status?.conditions).toBeUndefined();
    expect(device.status?.metrics).toBeUndefined();
    expect(device.status?.connectionStatus).toBe('CONNECTED');
    expect(server.gateway.isOnline(name)).toBe(true);

    // once it reads again, the replaced peer finds its connection closed as replaced
    replaced.socket.resume();
    expect(await replaced.closed).toBe(4001);
    expect(current.closeCode).toBeUndefined();
  });

  it('keeps the device online when the replaced connection finally closes', async (context) => {
    const name = perAttempt(context, 'projects/p1/regions/eu/devices/twice-close');
    const credential = await createDevice(server, name);
    const replaced = await connect(credential);
    const current = await connect(credential);
    expect(await replaced.closed).toBe(4001);
    await sleep(100);
    current.send({ type: 'status', seq: 1, deviceInfo: { kernelVersion: 'still-here' } });
    const device = await waitForStatus(name, (d) => d.status?.deviceInfo?.kernelVersion === 'still-here');
    expect(device.status?.connectionStatus).toBe('CONNECTED');
  });
});
