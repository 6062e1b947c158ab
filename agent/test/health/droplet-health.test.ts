import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Condition } from '@outpost/shared';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { TestGateway } from '../helpers/test-gateway.js';
import type { JsonMessage } from '../helpers/test-gateway.js';
import { startInProcessDevice } from '../os/helpers/in-process-device.js';
import type { InProcessDevice } from '../os/helpers/in-process-device.js';
import { startTcpTarget } from './helpers/targets.js';
import type { Target } from './helpers/targets.js';

const tempDir = useTempDirs();
const devices: InProcessDevice[] = [];
const gateways: TestGateway[] = [];
const targets: Target[] = [];
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.stop()));
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(targets.splice(0).map((t) => t.close()));
});

const conditionsOf = (message: JsonMessage): Condition[] => (message['conditions'] as Condition[] | undefined) ?? [];

describe('droplet runs the health checks of its desired device (in-process agent, real WebSocket)', () => {
  it('reports Healthy/<id> next to OSReady, follows spec pushes, and resumes the last checks offline after a restart', async () => {
    const target = await startTcpTarget();
    targets.push(target);
    const gateway = await TestGateway.start();
    gateways.push(gateway);
    const root = await tempDir();
    const { logger } = capturedLogger();
    devices.push(await startInProcessDevice(root, gateway.url, logger, { os: false }));
    const connection = await gateway.connection(0);
    await connection.waitFor('hello');
    connection.welcome();
    await connection.waitFor('getSpec');
    const check = {
      name: 'projects/p/regions/r/healthChecks/port',
      id: 'port',
      spec: { type: 'TCP', tcp: { host: '127.0.0.1', port: target.port }, intervalSeconds: 0.1 },
    };
    connection.send({
      type: 'spec',
      device: { name: 'projects/p/regions/r/devices/d1', spec: {}, metadata: { generation: 2 }, healthChecks: [check] },
    });
    const healthy = await connection.waitFor('status', (m) =>
      conditionsOf(m).some((c) => c.type === 'Healthy/port' && c.status === 'True'),
    );
    expect(
      conditionsOf(healthy)
        // the device configuration parts (NetworkConfigured, ...) report on their own schedule
        .filter((c) => !c.type.endsWith('Configured'))
        .map((c) => `${c.type}=${c.status}/${c.reason}`)
        .sort(),
    ).toEqual([
      'DiskUnlock=True/Unsupported',
      'Healthy/port=True/Passing',
      'OSReady=True/Unsupported',
      'WorkloadUser=False/NotConfigured',
    ]);

    // a push without the check takes its condition away
    connection.send({
      type: 'spec',
      device: { name: 'projects/p/regions/r/devices/d1', spec: {}, metadata: { generation: 3 }, healthChecks: [] },
    });
    await connection.waitFor('status', (m) => !conditionsOf(m).some((c) => c.type.startsWith('Healthy/')));

    // and one with it again is remembered across a restart, before any connection
    connection.send({
      type: 'spec',
      device: { name: 'projects/p/regions/r/devices/d1', spec: {}, metadata: { generation: 4 }, healthChecks: [check] },
    });
    await eventually(() =>
      expect(devices[0]!.droplet.reporter.current.conditions).toContainEqual(
        expect.objectContaining({ type: 'Healthy/port', status: 'True' }),
      ),
    );
    // (the last spec is on disk once its write, fsync included, is done)
    await eventually(async () =>
      expect(await readFile(join(root, 'data', 'desired-device.json'), 'utf8')).toContain('"generation": 4'),
    );
    await devices.splice(0)[0]!.stop();
    await gateway.close();
    gateways.splice(0);
    const offline = await TestGateway.start({ refuseUpgrade: () => 503 });
    gateways.push(offline);
    const restarted = await startInProcessDevice(root, offline.url, logger, { os: false });
    devices.push(restarted);
    await eventually(() =>
      expect(restarted.droplet.reporter.current.conditions).toContainEqual(
        expect.objectContaining({ type: 'Healthy/port', status: 'True', reason: 'Passing' }),
      ),
    );
  });
});
