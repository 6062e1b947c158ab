import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
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

async function connectedDevice(context: TestContext, id: string): Promise<{ name: string; agent: AgentSocket }> {
  const name = perAttempt(context, `projects/p1/regions/eu/devices/${id}`);
  const agent = await AgentSocket.connect(server.url, await createDevice(server, name));
  sockets.push(agent);
  return { name, agent };
}

async function waitForDevice(name: string, test: (device: Device) => boolean): Promise<Device> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const device = await server.admin.get<Device>(name);
    if (test(device)) return device;
    if (Date.now() > deadline) throw new Error(`timed out; last status ${JSON.stringify(device.status)}`);
    await sleep(20);
  }
}

const sample = (usagePercent: number): Record<string, unknown> => ({
  type: 'metrics',
  time: new Date().toISOString(),
  cpu: { usagePercent },
  memory: { totalBytes: 1000, usedBytes: 400 },
  storage: [{ mount: '/', totalBytes: 10_000, usedBytes: 5_000 }],
  uptimeSeconds: 60,
});

describe('what a device reports', () => {
  it('absurd values are answered with an error and change nothing', async (context) => {
    const { name, agent } = await connectedDevice(context, 'absurd');
    agent.send(sample(12));
    agent.send({ type: 'status', seq: 1, deviceInfo: { osVersion: '1.0.0' } });
    const before = await waitForDevice(
      name,
      (d) => d.status?.deviceInfo?.osVersion === '1.0.0' && d.status.deviceInfo.usage?.cpuPercent === 12,
    );

    agent.send(sample(1e308));
    agent.send({ ...sample(50), time: '9999-12-31T23:59:59Z' });
    agent.send({
      type: 'status',
      seq: 2,
      deviceInfo: { osVersion: '6.6.6', hardwareInformation: { disks: [{ sizeBytes: -190_000_000 }] } },
    });
    const errors = await agent.next('error', 3);
    expect(errors['status']).toBe('INVALID_ARGUMENT');
    const messages = agent.received.filter((m) => m.type === 'error').map((m) => m['message']);
    expect(messages).toEqual([
      expect.stringMatching(/cpu\.usagePercent/),
      expect.stringMatching(/time: must be a time between 1970/),
      expect.stringMatching(/sizeBytes/),
    ]);

    // a later good report is stored: the refused ones were not
    agent.send({ type: 'status', seq: 3, deviceInfo: { kernelVersion: 'after' } });
    const after = await waitForDevice(name, (d) => d.status?.deviceInfo?.kernelVersion === 'after');
    expect(after.status?.deviceInfo?.osVersion).toBe('1.0.0');
    expect(after.status?.deviceInfo?.usage).toEqual(before.status?.deviceInfo?.usage);
    expect(after.status?.metrics).toEqual(before.status?.metrics);
    // the message's own members are not part of the status (the writer is handed the message itself)
    expect(after.status).not.toHaveProperty('type');
    expect(after.status).not.toHaveProperty('seq');
  });

  it('cannot overwrite what the server derives: usage, connection status and its time, agent', async (context) => {
    const { name, agent } = await connectedDevice(context, 'forger');
    agent.send(sample(12));
    const before = await waitForDevice(name, (d) => d.status?.deviceInfo?.usage?.cpuPercent === 12);

    agent.send({
      type: 'status',
      seq: 1,
      deviceInfo: { osVersion: '1.0.0', usage: { cpuPercent: 99, memoryUsedBytes: 1, memoryTotalBytes: 2 } },
      connectionStatus: 'DISCONNECTED',
      connectionStatusChangeTime: '2001-01-01T00:00:00Z',
      agent: { version: 'forged', bootId: 'forged' },
      metrics: { ...sample(99), type: undefined },
    });
    const after = await waitForDevice(name, (d) => d.status?.deviceInfo?.osVersion === '1.0.0');
    expect(after.status?.deviceInfo?.usage).toEqual(before.status?.deviceInfo?.usage);
    expect(after.status?.connectionStatus).toBe('CONNECTED');
    expect(after.status?.connectionStatusChangeTime).toBe(before.status?.connectionStatusChangeTime);
    expect(after.status?.agent).toEqual({ version: '0.0.0-test', bootId: 'boot-1' });
    expect(after.status?.metrics).toEqual(before.status?.metrics);
    // the message's own members are not part of the status (the writer is handed the message itself)
    expect(after.status).not.toHaveProperty('type');
    expect(after.status).not.toHaveProperty('seq');
  });
});
