import type { MetricsSample } from '@outpost/shared';
import type {
  MetricsAggregate,
  MetricsBucketKey,
  MetricsSeriesRecords,
} from '../resources/storage/stores/metrics-series-records.js';
import { bucketOf, metricsTiers, tierFor } from './downsampling.js';
import type { Tier } from './downsampling.js';

/** One point of a device's metrics over one step: averages, with the maxima where a peak matters. */
export interface MetricsPoint {
  /** RFC 3339 start of the step */
  time: string;
  /** samples the point is made of */
  samples: number;
  cpuPercent: number;
  cpuPercentMax: number;
  memoryUsedBytes: number;
  memoryTotalBytes: number;
  /** over every reported filesystem */
  storageUsedBytes: number;
  storageTotalBytes: number;
  temperatureCelsius?: number;
  load1?: number;
  uptimeSeconds: number;
}

export interface MetricsQuery {
  device: string;
  fromMs: number;
  /** exclusive */
  toMs: number;
  stepMs: number;
  nowMs: number;
}

export interface MetricsSeries {
  /** the tier the points were computed from: 'raw', '60s' or '3600s' */
  resolution: string;
  points: MetricsPoint[];
}

/**
 * Buckets the prune deletes per transaction. At a million devices a run drops about 20 million (README, sizing):
 * in one transaction that would hold SQLite's single writer, or PostgreSQL's locks and WAL, for many seconds while
 * status reports wait; 5,000 keeps each slice to a few milliseconds, and the writes go in between.
 */
export const PRUNE_SLICE_ROWS = 5000;

/**
 * Each device's metrics as a time series in the engine's store (SQLite or PostgreSQL), downsampled into tiers
 * (see metricsTiers). A sample is added to one bucket of every tier (sums, counts and maxima), so reading any
 * range costs one grouped query over at most a few thousand buckets, and pruning deletes in bounded slices.
 */
export class MetricsHistory {
  readonly tiers: readonly Tier[];

  constructor(
    private readonly series: MetricsSeriesRecords,
    options: { retentionDays: number },
  ) {
    this.tiers = metricsTiers(options.retentionDays);
  }

  /** Adds samples (device name, the time it arrived, the sample) in one transaction. */
  record(entries: readonly { device: string; timeMs: number; sample: MetricsSample }[]): void {
    // samples falling in one bucket are added up first: the store writes each bucket once
    const buckets = new Map<string, MetricsBucketKey & MetricsAggregate>();
    for (const { device, timeMs, sample } of entries) {
      const values = aggregateOf(sample);
      for (const tier of this.tiers) {
        const key = { device, resolutionMs: tier.resolutionMs, bucket: bucketOf(tier, timeMs) };
        const id = `${key.resolutionMs} ${key.bucket} ${device}`;
        const held = buckets.get(id);
        buckets.set(id, held === undefined ? { ...key, ...values } : { ...key, ...merged(held, values) });
      }
    }
    this.series.add([...buckets.values()]);
  }

  /** The device's metrics from `fromMs` to `toMs`, one point per step that has samples. */
  query(q: MetricsQuery): MetricsSeries {
    const tier = tierFor(this.tiers, q.fromMs, q.nowMs);
    const rows = this.series.points({
      device: q.device,
      resolutionMs: tier.resolutionMs,
      bucket: q.fromMs,
      toBucket: q.toMs,
      stepMs: q.stepMs,
    });
    return { resolution: tier.resolution, points: rows.map(pointOf) };
  }

  /**
   * Drops what every tier no longer keeps, oldest first, PRUNE_SLICE_ROWS buckets per transaction, giving the event loop
   * a turn between slices; stops early (between slices) when `signal` aborts. Answers the number of buckets removed.
   * Each slice commits alone: a run cut short leaves whole buckets, and the next run deletes the rest.
   */
  async prune(nowMs: number, signal?: AbortSignal): Promise<number> {
    let removed = 0;
    // every tier's buckets are written with the sample (record), so any order of deletes keeps the coarser ones
    for (const tier of this.tiers) {
      const cutoff = nowMs - tier.retentionMs;
      for (;;) {
        if (signal?.aborted === true) return removed;
        const deleted = this.series.deleteOldest(tier.resolutionMs, cutoff, PRUNE_SLICE_ROWS);
        removed += deleted;
        if (deleted < PRUNE_SLICE_ROWS) break;
        await nextTurn();
      }
    }
    return removed;
  }

  /** Drops a deleted device's history. */
  forget(device: string): void {
    this.series.deleteDevice(device);
  }
}

function aggregateOf(sample: MetricsSample): MetricsAggregate {
  const storage = sample.storage.reduce(
    (sum, fs) => ({ used: sum.used + fs.usedBytes, total: sum.total + fs.totalBytes }),
    { used: 0, total: 0 },
  );
  return {
    count: 1,
    cpuSum: sample.cpu.usagePercent,
    cpuMax: sample.cpu.usagePercent,
    memUsedSum: sample.memory.usedBytes,
    memTotalMax: sample.memory.totalBytes,
    storageUsedSum: storage.used,
    storageTotalMax: storage.total,
    tempSum: sample.temperatureCelsius ?? 0,
    tempCount: sample.temperatureCelsius === undefined ? 0 : 1,
    loadSum: sample.load1 ?? 0,
    loadCount: sample.load1 === undefined ? 0 : 1,
    uptimeMax: sample.uptimeSeconds,
  };
}

function merged(a: MetricsAggregate, b: MetricsAggregate): MetricsAggregate {
  return {
    count: a.count + b.count,
    cpuSum: a.cpuSum + b.cpuSum,
    cpuMax: Math.max(a.cpuMax, b.cpuMax),
    memUsedSum: a.memUsedSum + b.memUsedSum,
    memTotalMax: Math.max(a.memTotalMax, b.memTotalMax),
    storageUsedSum: a.storageUsedSum + b.storageUsedSum,
    storageTotalMax: Math.max(a.storageTotalMax, b.storageTotalMax),
    tempSum: a.tempSum + b.tempSum,
    tempCount: a.tempCount + b.tempCount,
    loadSum: a.loadSum + b.loadSum,
    loadCount: a.loadCount + b.loadCount,
    uptimeMax: Math.max(a.uptimeMax, b.uptimeMax),
  };
}

function pointOf(row: MetricsAggregate & { t: number }): MetricsPoint {
  const point: MetricsPoint = {
    time: new Date(row.t).toISOString(),
    samples: row.count,
    cpuPercent: round(row.cpuSum / row.count),
    cpuPercentMax: round(row.cpuMax),
    memoryUsedBytes: Math.round(row.memUsedSum / row.count),
    memoryTotalBytes: row.memTotalMax,
    storageUsedBytes: Math.round(row.storageUsedSum / row.count),
    storageTotalBytes: row.storageTotalMax,
    uptimeSeconds: row.uptimeMax,
  };
  if (row.tempCount > 0) point.temperatureCelsius = round(row.tempSum / row.tempCount);
  if (row.loadCount > 0) point.load1 = round(row.loadSum / row.loadCount);
  return point;
}

/** Lets timers and I/O (requests, status reports) run before the work goes on. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const round = (value: number): number => Math.round(value * 100) / 100;
