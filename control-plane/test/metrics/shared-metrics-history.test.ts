/**
 * Issue 22, metrics history shared by replicas on one PostgreSQL database: every replica records the samples of
 * the devices whose reports it stores, and sees the others' reports only as changes it follows; a sample is
 * counted once, whichever replica is asked.
 */
import { describe, expect, it } from 'vitest';
import type { MetricsSample } from '@outpost/shared';
import { WatchFollower } from '../../src/cluster/watch-follower.js';
import { createDeviceService } from '../../src/devices/device-service.js';
import { MetricsHistory } from '../../src/metrics/metrics-history.js';
import { recordDeviceMetrics } from '../../src/metrics/metrics-recorder.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { postgresSuiteSkipped, suitePostgres } from '../helpers/suite-postgres.js';

const PARENT = 'projects/shared/regions/eu';
const DEVICE = `${PARENT}/devices/d1`;
const T0 = Date.parse('2025-03-01T00:00:00Z');

const skipped = postgresSuiteSkipped('shared metrics history test');

const sample = (cpu: number, at: number): MetricsSample => ({
  time: new Date(at).toISOString(),
  cpu: { usagePercent: cpu },
  memory: { totalBytes: 1000, usedBytes: 100 },
  storage: [{ mount: '/', totalBytes: 500, usedBytes: 100 }],
  uptimeSeconds: 1,
});

describe.skipIf(skipped)('metrics history of replicas on one PostgreSQL database', () => {
  const postgres = suitePostgres();

  /** One replica: its engine, devices, history and recorder, all on the shared database. */
  const replica = (url: string) => {
    const storage = postgres.open(url);
    let clock = T0;
    const engine = new ResourceEngine(storage, { now: () => new Date((clock += 1000)) });
    const { devices } = createDeviceService(engine);
    const history = new MetricsHistory(engine.stores.metricsSeries, { retentionDays: 30 });
    const errors: unknown[] = [];
    const recorder = recordDeviceMetrics(devices, history, (err) => errors.push(err));
    return { engine, devices, history, recorder, errors };
  };

  it('counts each sample once, stored by one replica and followed by the other', () => {
    const url = postgres.createDatabase();
    const a = replica(url);
    const b = replica(url);
    const follower = new WatchFollower(b.engine, { announce: () => {}, onError: (err) => b.errors.push(err) });
    try {
      a.devices.create({ parent: PARENT, resource: { name: DEVICE } }, { system: true });
      for (const [i, cpu] of [10, 30, 50].entries()) {
        a.devices.patch(DEVICE, (doc) => ({
          ...doc,
          status: { ...(doc['status'] as object), metrics: sample(cpu, T0 + i) },
        }));
      }
      follower.catchUp();
      a.recorder.flush();
      b.recorder.flush();
      expect([...a.errors, ...b.errors]).toEqual([]);
      const query = { device: DEVICE, fromMs: T0, toMs: T0 + 60_000, stepMs: 60_000, nowMs: T0 + 60_000 };
      for (const { history } of [a, b]) {
        expect(history.query(query).points).toEqual([expect.objectContaining({ samples: 3, cpuPercent: 30 })]);
      }
    } finally {
      follower.stop();
      a.recorder.stop();
      b.recorder.stop();
    }
  });
});
