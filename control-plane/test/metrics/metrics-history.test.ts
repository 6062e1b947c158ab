import { describe, expect, it } from 'vitest';
import type { MetricsSample } from '@outpost/shared';
import { metricsTiers, parseDuration, tierFor } from '../../src/metrics/downsampling.js';
import { MetricsHistory, PRUNE_SLICE_ROWS } from '../../src/metrics/metrics-history.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages } from '../helpers/storages.js';

const T0 = Date.parse('2025-03-01T00:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const sample = (cpu: number, extra: Partial<MetricsSample> = {}): MetricsSample => ({
  time: new Date(T0).toISOString(),
  cpu: { usagePercent: cpu },
  memory: { totalBytes: 1000, usedBytes: cpu * 10 },
  storage: [
    { mount: '/', totalBytes: 500, usedBytes: 100 },
    { mount: '/outpost', totalBytes: 300, usedBytes: 50 },
  ],
  uptimeSeconds: cpu,
  ...extra,
});

describe('downsampling plan', () => {
  it('raw for an hour, minutes for a day, hours for the retention; each capped by the retention', () => {
    expect(metricsTiers(30).map((t) => [t.resolution, t.retentionMs])).toEqual([
      ['raw', HOUR],
      ['60s', DAY],
      ['3600s', 30 * DAY],
    ]);
    const now = T0 + 100 * DAY;
    expect(tierFor(metricsTiers(30), now - 30 * MIN, now).resolution).toBe('raw');
    expect(tierFor(metricsTiers(30), now - 2 * HOUR, now).resolution).toBe('60s');
    expect(tierFor(metricsTiers(30), now - 3 * DAY, now).resolution).toBe('3600s');
    expect(tierFor(metricsTiers(30), now - 90 * DAY, now).resolution).toBe('3600s');
  });

  it('parses steps', () => {
    expect([
      parseDuration('60s'),
      parseDuration('5m'),
      parseDuration('1h'),
      parseDuration('90'),
      parseDuration('1d'),
    ]).toEqual([60_000, 300_000, HOUR, 90_000, DAY]);
    expect(parseDuration('soon')).toBeUndefined();
  });
});

describeStorages('MetricsHistory', (fresh) => {
  const history = (retentionDays = 30): MetricsHistory =>
    new MetricsHistory(new ResourceEngine(fresh()).stores.metricsSeries, { retentionDays });

  it('serves raw samples aggregated per step: averages, maxima, sums over filesystems', () => {
    const store = history();
    store.record([
      { device: 'd1', timeMs: T0 + 5_000, sample: sample(10, { temperatureCelsius: 40, load1: 0.5 }) },
      { device: 'd1', timeMs: T0 + 35_000, sample: sample(30, { temperatureCelsius: 50 }) },
      { device: 'd1', timeMs: T0 + 65_000, sample: sample(20) },
      { device: 'd2', timeMs: T0 + 5_000, sample: sample(99) },
    ]);
    const series = store.query({ device: 'd1', fromMs: T0, toMs: T0 + 2 * MIN, stepMs: MIN, nowMs: T0 + 10 * MIN });
    expect(series.resolution).toBe('raw');
    expect(series.points).toEqual([
      {
        time: '2025-03-01T00:00:00.000Z',
        samples: 2,
        cpuPercent: 20,
        cpuPercentMax: 30,
        memoryUsedBytes: 200,
        memoryTotalBytes: 1000,
        storageUsedBytes: 150,
        storageTotalBytes: 800,
        temperatureCelsius: 45,
        load1: 0.5,
        uptimeSeconds: 30,
      },
      {
        time: '2025-03-01T00:01:00.000Z',
        samples: 1,
        cpuPercent: 20,
        cpuPercentMax: 20,
        memoryUsedBytes: 200,
        memoryTotalBytes: 1000,
        storageUsedBytes: 150,
        storageTotalBytes: 800,
        uptimeSeconds: 20,
      },
    ]);
    const wide = store.query({ device: 'd1', fromMs: T0, toMs: T0 + HOUR, stepMs: HOUR, nowMs: T0 + 10 * MIN });
    expect(wide.points).toHaveLength(1);
    expect(wide.points[0]).toMatchObject({ samples: 3, cpuPercent: 20, cpuPercentMax: 30 });
  });

  it('answers older ranges from the minute and hour buckets, and prunes each tier after its retention', async () => {
    const store = history(7);
    const entries = [];
    // one sample a minute for three hours, cpu = minute of the hour
    for (let m = 0; m < 180; m++) entries.push({ device: 'd1', timeMs: T0 + m * MIN + 1_000, sample: sample(m % 60) });
    store.record(entries);

    const later = T0 + 5 * HOUR;
    const minutes = store.query({ device: 'd1', fromMs: T0, toMs: T0 + 3 * HOUR, stepMs: 30 * MIN, nowMs: later });
    expect(minutes.resolution).toBe('60s');
    expect(minutes.points.map((p) => [p.samples, p.cpuPercent])).toEqual([
      [30, 14.5],
      [30, 44.5],
      [30, 14.5],
      [30, 44.5],
      [30, 14.5],
      [30, 44.5],
    ]);

    const twoDaysLater = T0 + 2 * DAY;
    const hours = store.query({ device: 'd1', fromMs: T0, toMs: T0 + 3 * HOUR, stepMs: HOUR, nowMs: twoDaysLater });
    expect(hours.resolution).toBe('3600s');
    expect(hours.points.map((p) => [p.time, p.samples, p.cpuPercent, p.cpuPercentMax])).toEqual([
      ['2025-03-01T00:00:00.000Z', 60, 29.5, 59],
      ['2025-03-01T01:00:00.000Z', 60, 29.5, 59],
      ['2025-03-01T02:00:00.000Z', 60, 29.5, 59],
    ]);

    expect(await store.prune(twoDaysLater)).toBe(180 + 180); // every raw sample and minute bucket
    expect(
      store.query({ device: 'd1', fromMs: T0, toMs: T0 + HOUR, stepMs: MIN, nowMs: T0 + 10 * MIN }).points,
    ).toEqual([]);
    expect(
      store.query({ device: 'd1', fromMs: T0, toMs: T0 + 3 * HOUR, stepMs: HOUR, nowMs: twoDaysLater }).points,
    ).toHaveLength(3);
    expect(await store.prune(T0 + 8 * DAY)).toBe(3); // the hours, after the 7-day retention
  });

  it('adds samples recorded apart into the buckets already stored', () => {
    const store = history();
    store.record([{ device: 'd1', timeMs: T0 + 1_000, sample: sample(10, { load1: 1 }) }]);
    store.record([
      { device: 'd1', timeMs: T0 + 2_000, sample: sample(50, { temperatureCelsius: 30 }) },
      { device: 'd1', timeMs: T0 + 3_000, sample: sample(30, { load1: 3 }) },
    ]);
    store.record([{ device: 'd1', timeMs: T0 + 1_000, sample: sample(2) }]); // the same raw instant again
    const later = T0 + 2 * HOUR; // answered from the minute buckets
    const minute = store.query({ device: 'd1', fromMs: T0, toMs: T0 + MIN, stepMs: MIN, nowMs: later });
    expect(minute.resolution).toBe('60s');
    expect(minute.points).toEqual([
      expect.objectContaining({ samples: 4, cpuPercent: 23, cpuPercentMax: 50, temperatureCelsius: 30, load1: 2 }),
    ]);
    const raw = store.query({ device: 'd1', fromMs: T0, toMs: T0 + MIN, stepMs: 1_000, nowMs: T0 + MIN });
    expect(raw.points.map((p) => [p.time, p.samples, p.cpuPercent])).toEqual([
      ['2025-03-01T00:00:01.000Z', 2, 6],
      ['2025-03-01T00:00:02.000Z', 1, 50],
      ['2025-03-01T00:00:03.000Z', 1, 30],
    ]);
  });

  it('prunes in slices, each its own transaction, keeping the buckets and what is written in between', async () => {
    const storage = fresh();
    const store = new MetricsHistory(new ResourceEngine(storage).stores.metricsSeries, { retentionDays: 30 });
    const samples = PRUNE_SLICE_ROWS + 500;
    const entries = [];
    // one sample a second from T0: that many raw rows, a minute bucket for each of their minutes, two hour buckets
    for (let s = 0; s < samples; s++) entries.push({ device: 'd1', timeMs: T0 + s * 1_000, sample: sample(s % 100) });
    store.record(entries);
    const now = T0 + 3 * HOUR; // the raw samples are past their hour; the buckets are kept
    const rawLeft = (): number =>
      store.query({ device: 'd1', fromMs: T0, toMs: T0 + 2 * HOUR, stepMs: 2 * HOUR, nowMs: T0 + 10 * MIN }).points[0]
        ?.samples ?? 0;

    const pruning = store.prune(now);
    // the first slice has committed, the rest waits for the next turn of the event loop
    expect(storage.inTransaction).toBe(false);
    expect(rawLeft()).toBe(500);
    store.record([{ device: 'd1', timeMs: now - 1_000, sample: sample(7) }]);
    expect(await pruning).toBe(samples);

    expect(rawLeft()).toBe(0);
    const recent = store.query({ device: 'd1', fromMs: now - MIN, toMs: now, stepMs: MIN, nowMs: now });
    expect(recent.resolution).toBe('raw');
    expect(recent.points.map((p) => [p.samples, p.cpuPercent])).toEqual([[1, 7]]);
    const minutes = store.query({ device: 'd1', fromMs: T0, toMs: now, stepMs: HOUR, nowMs: now });
    expect(minutes.resolution).toBe('60s');
    expect(minutes.points.map((p) => p.samples)).toEqual([3600, samples - 3600, 1]);
  });

  it('stops between slices when the job stops; the next run deletes the rest', async () => {
    const store = history();
    const entries = [];
    for (let s = 0; s < PRUNE_SLICE_ROWS + 1; s++)
      entries.push({ device: 'd1', timeMs: T0 + s * 1_000, sample: sample(1) });
    store.record(entries);
    const now = T0 + 3 * HOUR;
    const stop = new AbortController();
    const pruning = store.prune(now, stop.signal);
    stop.abort();
    expect(await pruning).toBe(PRUNE_SLICE_ROWS);
    expect(await store.prune(now)).toBe(1);
    expect(await store.prune(now)).toBe(0);
  });

  it('forgets a deleted device', () => {
    const store = history();
    store.record([{ device: 'd1', timeMs: T0, sample: sample(1) }]);
    store.forget('d1');
    expect(store.query({ device: 'd1', fromMs: T0 - 1, toMs: T0 + 1, stepMs: 1000, nowMs: T0 }).points).toEqual([]);
  });
});
