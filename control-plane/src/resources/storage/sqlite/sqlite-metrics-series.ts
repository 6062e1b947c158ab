import type { Db } from './open-database.js';
import type {
  MetricsAggregate,
  MetricsBucketKey,
  MetricsPointsQuery,
  MetricsSeriesRecords,
} from '../stores/metrics-series-records.js';

const TABLE = 'device_metric_points';

/** The metrics time series in the SQLite table device_metric_points (migration version 3). */
export class SqliteMetricsSeries implements MetricsSeriesRecords {
  private readonly addAll;
  private readonly oldest;
  private readonly ofDevice;
  private readonly grouped;

  constructor(db: Db) {
    const upsert = db.prepare<[MetricsBucketKey & MetricsAggregate]>(`INSERT INTO ${TABLE} VALUES
        (@device, @resolutionMs, @bucket, @count, @cpuSum, @cpuMax, @memUsedSum, @memTotalMax, @storageUsedSum,
         @storageTotalMax, @tempSum, @tempCount, @loadSum, @loadCount, @uptimeMax)
      ON CONFLICT (device, resolution_ms, bucket) DO UPDATE SET
        count = count + excluded.count,
        cpu_sum = cpu_sum + excluded.cpu_sum, cpu_max = max(cpu_max, excluded.cpu_max),
        mem_used_sum = mem_used_sum + excluded.mem_used_sum, mem_total_max = max(mem_total_max, excluded.mem_total_max),
        storage_used_sum = storage_used_sum + excluded.storage_used_sum,
        storage_total_max = max(storage_total_max, excluded.storage_total_max),
        temp_sum = temp_sum + excluded.temp_sum, temp_count = temp_count + excluded.temp_count,
        load_sum = load_sum + excluded.load_sum, load_count = load_count + excluded.load_count,
        uptime_max = max(uptime_max, excluded.uptime_max)`);
    this.addAll = db.transaction((aggregates: readonly (MetricsBucketKey & MetricsAggregate)[]) => {
      for (const aggregate of aggregates) upsert.run(aggregate);
    });
    // the age index holds the whole key (the table has no rowid): the oldest keys come from it alone
    this.oldest = db.prepare<[number, number, number]>(
      `DELETE FROM ${TABLE} WHERE (device, resolution_ms, bucket) IN
         (SELECT device, resolution_ms, bucket FROM ${TABLE} WHERE resolution_ms = ? AND bucket < ?
           ORDER BY bucket LIMIT ?)`,
    );
    this.ofDevice = db.prepare<[string]>(`DELETE FROM ${TABLE} WHERE device = ?`);
    // one row per step: buckets grouped by the step they start in (floor division, also for negative times)
    this.grouped = db.prepare<[MetricsPointsQuery], MetricsAggregate & { t: number }>(
      `SELECT (bucket - ((bucket % @stepMs) + @stepMs) % @stepMs) AS t, sum(count) AS count,
           sum(cpu_sum) AS cpuSum, max(cpu_max) AS cpuMax,
           sum(mem_used_sum) AS memUsedSum, max(mem_total_max) AS memTotalMax,
           sum(storage_used_sum) AS storageUsedSum, max(storage_total_max) AS storageTotalMax,
           sum(temp_sum) AS tempSum, sum(temp_count) AS tempCount,
           sum(load_sum) AS loadSum, sum(load_count) AS loadCount,
           max(uptime_max) AS uptimeMax
         FROM ${TABLE}
         WHERE device = @device AND resolution_ms = @resolutionMs AND bucket >= @bucket AND bucket < @toBucket
         GROUP BY t ORDER BY t`,
    );
  }

  add(aggregates: readonly (MetricsBucketKey & MetricsAggregate)[]): void {
    if (aggregates.length > 0) this.addAll(aggregates);
  }

  points(query: MetricsPointsQuery): (MetricsAggregate & { t: number })[] {
    const { device, resolutionMs, bucket, toBucket, stepMs } = query;
    return this.grouped.all({ device, resolutionMs, bucket, toBucket, stepMs });
  }

  deleteOldest(resolutionMs: number, bucket: number, limit: number): number {
    return this.oldest.run(resolutionMs, bucket, limit).changes;
  }

  deleteDevice(device: string): void {
    this.ofDevice.run(device);
  }
}
