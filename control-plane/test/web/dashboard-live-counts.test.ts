/**
 * The fleet overview's counts without a browser (`src/web/assets/api/live-counts.js`) against a real control
 * plane: read with devices:counts, then read again when a watch resumed from the counts' position reports a
 * change of a counted field, and only then: a change of anything else, or nothing, reads nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../src/web/assets/api/client.js';
import { countsPath, deviceCounts, followCounts, valueCounts } from '../../src/web/assets/api/live-counts.js';
import type { DeviceCounts } from '../../src/web/assets/api/live-counts.js';
import { LiveWatch } from '../../src/web/assets/api/watch.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const region = 'projects/counts-dash/regions/eu';
let server: TestServer;
let client: DashboardClient;

/** A device with this running version and connection (created first: a new device starts DISCONNECTED). */
function device(id: string, osVersion: string, connectionStatus: string, labels: Record<string, string> = {}): void {
  const devices = server.engine.resource('devices');
  const name = `${region}/devices/${id}`;
  if (!devices.find(name)) devices.put({ name });
  devices.patch(name, (doc) => ({
    ...doc,
    metadata: { ...(doc['metadata'] as object), labels },
    status: { connectionStatus, deviceInfo: { osVersion } },
  }));
}

/** The three devices as both tests start (without labels). */
function seedDevices(): void {
  device('da', '1.0.0', 'CONNECTED');
  device('db', '1.0.0', 'DISCONNECTED');
  device('dc', '1.1.0', 'DISCONNECTED');
}

beforeAll(async () => {
  server = await startTestServer();
  client = new DashboardClient({ apiKey: TEST_ADMIN_KEY, fetch, server: server.url });
  seedDevices();
});
afterAll(async () => server.dispose());

describe('fleet counts', () => {
  it('builds the request and reads the answer: values most common first, devices without the field as ""', async () => {
    const path = countsPath(region, {
      by: ['status.deviceInfo.osVersion'],
      counts: { online: 'status.connectionStatus = "Online"' },
    });
    expect(path).toBe(
      `/v1/${region}/devices:counts?by=status.deviceInfo.osVersion&count.online=status.connectionStatus+%3D+%22Online%22`,
    );
    const counts = deviceCounts(await client.request('GET', path));
    expect(counts.total).toBe(3);
    expect(counts.counts).toEqual({ online: 1 });
    expect(valueCounts(counts, 'status.deviceInfo.osVersion')).toEqual([
      ['1.0.0', 2],
      ['1.1.0', 1],
    ]);
    expect(counts.resumeToken).toMatch(/^r/);
  });

  it('reads again after a change of a counted field, not after other changes', async () => {
    seedDevices(); // a CI retry finds the changes of its first attempt
    const path = countsPath(region, { by: ['status.deviceInfo.osVersion'] });
    const reads: DeviceCounts[] = [];
    const errors: unknown[] = [];
    const watches: LiveWatch[] = [];
    /** the devices the watch told of */
    const told: string[] = [];
    const follower = followCounts({
      read: async () => {
        const counts = deviceCounts(await client.request('GET', path));
        reads.push(counts);
        return counts;
      },
      watchPath: `/v1/${region}/devices:watch`,
      fieldMask: 'status.deviceInfo.osVersion',
      intervalMs: 50,
      openWatch: (watchPath, options) => {
        const watch = new LiveWatch({
          ...options,
          onMessage: (message) => {
            const changes = Array.isArray(message['deviceChanges']) ? message['deviceChanges'] : [];
            for (const change of changes as { current?: { device?: { name?: string } } }[]) {
              told.push(String(change.current?.device?.name).split('/').pop() ?? '');
            }
            options.onMessage(message);
          },
          path: watchPath,
          apiKey: TEST_ADMIN_KEY,
          fetch: (url, init) => fetch(`${server.url}${url}`, init),
        }).start();
        watches.push(watch);
        return watch;
      },
      onError: (err) => errors.push(err),
    });
    try {
      await expect.poll(() => watches[0]?.state, { timeout: 30_000 }).toBe('live');
      expect(reads).toHaveLength(1);
      // a label is not counted: the watch's mask leaves its change out, so nothing is sent and nothing read
      device('da', '1.0.0', 'CONNECTED', { site: 'north' });
      device('dc', '1.2.0', 'DISCONNECTED');
      await expect.poll(() => reads.length, { timeout: 30_000 }).toBe(2);
      expect(valueCounts(reads[1]!, 'status.deviceInfo.osVersion')).toEqual([
        ['1.0.0', 2],
        ['1.2.0', 1],
      ]);
      device('db', '1.2.0', 'DISCONNECTED', { site: 'south' });
      await expect.poll(() => reads.length, { timeout: 30_000 }).toBe(3);
      expect(valueCounts(reads[2]!, 'status.deviceInfo.osVersion')).toEqual([
        ['1.2.0', 2],
        ['1.0.0', 1],
      ]);
      expect(told).toEqual(['dc', 'db']);
      expect(watches).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      follower.stop();
    }
  });
});
