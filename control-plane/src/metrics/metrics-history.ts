import type { MetricsSample } from '@outpost/shared';
import type { Db } from '../db/open-database.js';
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

const TABLE = 'device_metric_points';

interface PointRow {
  t: number;
  count: number;
  cpu: number;
  cpu_max: number;
  mem_used: number;
  mem_total: number;
  storage_used: number;
  storage_total: number;
  temp: number;
  temp_count: number;
  load: number;
  load_count: number;
  uptime: number;
}

/**
 * Each device's metrics as a time series in SQLite, downsampled into tiers (see metricsTiers). A sample is
 * added to one row of every tier (sums, counts and maxima), so reading any range costs one grouped query
 * over at most a few thousand rows, and pruning is one delete per tier.
 */
export class MetricsHistory {
  readonly tiers: readonly Tier[];
  private readonly upsert;
  private readonly deleteOlder;
  private readonly deleteDevice;
  private readonly selectPoints;

  constructor(
    private readonly db: Db,
    options: { retentionDays: number },
  ) {
    this.tiers = metricsTiers(options.retentionDays);
    db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      device TEXT NOT NULL,
      resolution_ms INTEGER NOT NULL,
      bucket INTEGER NOT NULL,
      count INTEGER NOT NULL,
      cpu_sum REAL NOT NULL, cpu_max REAL NOT NULL,
      mem_used_sum REAL NOT NULL, mem_total_max REAL NOT NULL,
      storage_used_sum REAL NOT NULL, storage_total_max REAL NOT NULL,
      temp_sum REAL NOT NULL, temp_count INTEGER NOT NULL,
      load_sum REAL NOT NULL, load_count INTEGER NOT NULL,
      uptime_max REAL NOT NULL,
      PRIMARY KEY (device, resolution_ms, bucket)
    ) WITHOUT ROWID`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_age ON ${TABLE} (resolution_ms, bucket)`);
    this.upsert = db.prepare(`INSERT INTO ${TABLE} VALUES
        (@device, @resolutionMs, @bucket, 1, @cpu, @cpu, @memUsed, @memTotal, @storageUsed, @storageTotal,
         @temp, @tempCount, @load, @loadCount, @uptime)
      ON CONFLICT (device, resolution_ms, bucket) DO UPDATE SET
        count = count + 1,
        cpu_sum = cpu_sum + excluded.cpu_sum, cpu_max = max(cpu_max, excluded.cpu_max),
        mem_used_sum = mem_used_sum + excluded.mem_used_sum, mem_total_max = max(mem_total_max, excluded.mem_total_max),
        storage_used_sum = storage_used_sum + excluded.storage_used_sum,
        storage_total_max = max(storage_total_max, excluded.storage_total_max),
        temp_sum = temp_sum + excluded.temp_sum, temp_count = temp_count + excluded.temp_count,
        load_sum = load_sum + excluded.load_sum, load_count = load_count + excluded.load_count,
        uptime_max = max(uptime_max, excluded.uptime_max)`);
    this.deleteOlder = db.prepare(`DELETE FROM ${TABLE} WHERE resolution_ms = ? AND bucket < ?`);
    this.deleteDevice = db.prepare(`DELETE FROM ${TABLE} WHERE device = ?`);
    // one row per step: buckets grouped by the step they start in (floor division, also for negative times)
    this.selectPoints = db.prepare(
      `SELECT (bucket - ((bucket % @step) + @step) % @step) AS t, sum(count) AS count,
           sum(cpu_sum) AS cpu, max(cpu_max) AS cpu_max,
           sum(mem_used_sum) AS mem_used, max(mem_total_max) AS mem_total,
           sum(storage_used_sum) AS storage_used, max(storage_total_max) AS storage_total,
           sum(temp_sum) AS temp, sum(temp_count) AS temp_count,
           sum(load_sum) AS load, sum(load_count) AS load_count,
           max(uptime_max) AS uptime
         FROM ${TABLE}
         WHERE device = @device AND resolution_ms = @resolutionMs AND bucket >= @from AND bucket < @to
         GROUP BY t ORDER BY t`,
    );
  }

  /** Adds samples (device name, the time it arrived, the sample) in one transaction. */
  record(entries: readonly { device: string; timeMs: number; sample: MetricsSample }[]): void {
    if (entries.length === 0) return;
    this.db.transaction(() => {
      for (const { device, timeMs, sample } of entries) {
        const values = sampleValues(sample);
        for (const tier of this.tiers) {
          this.upsert.run({ device, resolutionMs: tier.resolutionMs, bucket: bucketOf(tier, timeMs), ...values });
        }
      }
    })();
  }

  /** The device's metrics from `fromMs` to `toMs`, one point per step that has samples. */
  query(q: MetricsQuery): MetricsSeries {
    const tier = tierFor(this.tiers, q.fromMs, q.nowMs);
    const rows = this.selectPoints.all({
      device: q.device,
      resolutionMs: tier.resolutionMs,
      from: q.fromMs,
      to: q.toMs,
      step: q.stepMs,
    }) as PointRow[];
    return { resolution: tier.resolution, points: rows.map(pointOf) };
  }

  /** Drops what every tier no longer keeps; answers the number of rows removed. */
  prune(nowMs: number): number {
    let removed = 0;
    for (const tier of this.tiers) removed += this.deleteOlder.run(tier.resolutionMs, nowMs - tier.retentionMs).changes;
    return removed;
  }

  /** Drops a deleted device's history. */
  forget(device: string): void {
    this.deleteDevice.run(device);
  }
}

function sampleValues(sample: MetricsSample) {
  const storage = sample.storage.reduce(
    (sum, fs) => ({ used: sum.used + fs.usedBytes, total: sum.total + fs.totalBytes }),
    { used: 0, total: 0 },
  );
  return {
    cpu: sample.cpu.usagePercent,
    memUsed: sample.memory.usedBytes,
    memTotal: sample.memory.totalBytes,
    storageUsed: storage.used,
    storageTotal: storage.total,
    temp: sample.temperatureCelsius ?? 0,
    tempCount: sample.temperatureCelsius === undefined ? 0 : 1,
    load: sample.load1 ?? 0,
    loadCount: sample.load1 === undefined ? 0 : 1,
    uptime: sample.uptimeSeconds,
  };
}

function pointOf(row: PointRow): MetricsPoint {
  const point: MetricsPoint = {
    time: new Date(row.t).toISOString(),
    samples: row.count,
    cpuPercent: round(row.cpu / row.count),
    cpuPercentMax: round(row.cpu_max),
    memoryUsedBytes: Math.round(row.mem_used / row.count),
    memoryTotalBytes: row.mem_total,
    storageUsedBytes: Math.round(row.storage_used / row.count),
    storageTotalBytes: row.storage_total,
    uptimeSeconds: row.uptime,
  };
  if (row.temp_count > 0) point.temperatureCelsius = round(row.temp / row.temp_count);
  if (row.load_count > 0) point.load1 = round(row.load / row.load_count);
  return point;
}

const round = (value: number): number => Math.round(value * 100) / 100;
