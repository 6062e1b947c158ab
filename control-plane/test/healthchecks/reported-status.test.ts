import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { RawAgent, createDevice } from './helpers/raw-agent.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

describe('what the agent reports of its checks and hooks lands in the device status', () => {
  it('stores Healthy/<id> conditions next to OSReady and the hook runs in status.hooks', async (context) => {
    const name = perAttempt(context, 'projects/acme/regions/eu/devices/gw-1');
    const agent = await RawAgent.connect(server, await createDevice(server, name));
    const time = new Date().toISOString();
    agent.send({
      type: 'status',
      seq: 1,
      conditions: [
        { type: 'OSReady', status: 'True', reason: 'Converged', message: 'running 1.0.0', lastTransitionTime: time },
        {
          type: 'Healthy/web',
          status: 'False',
          reason: 'Timeout',
          message: 'no result within 5s',
          lastTransitionTime: time,
        },
      ],
      hooks: [
        { hook: 'on-boot', startTime: time, durationMs: 1200, exitCode: 0, timedOut: false, bootId: 'boot-1' },
        {
          hook: 'on-shutdown',
          startTime: time,
          durationMs: 90_000,
          signal: 'SIGKILL',
          timedOut: true,
          bootId: 'boot-0',
        },
      ],
    });
    await expect.poll(async () => (await server.admin.get<Device>(name)).status?.hooks?.length ?? 0).toBe(2);
    const device = await server.admin.get<Device>(name);
    expect(device.status?.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'OSReady=True/Converged',
      'Healthy/web=False/Timeout',
    ]);
    expect(device.status?.hooks?.[1]).toMatchObject({ hook: 'on-shutdown', timedOut: true, signal: 'SIGKILL' });
    await agent.close();
  });
});
