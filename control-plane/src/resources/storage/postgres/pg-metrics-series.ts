import type {
  MetricsAggregate,
  MetricsBucketKey,
  MetricsPointsQuery,
  MetricsSeriesRecords,
} from '../stores/metrics-series-records.js';
import type { PgStorage } from './pg-storage.js';

const TABLE = 'device_metric_points';

/** The columns in table order, each with its aggregate field and its PostgreSQL array type. */
const COLUMNS: readonly [column: string, field: keyof (MetricsBucketKey & MetricsAggregate), type: string][] = [
  ['device', 'device', 'text'],
  ['resolution_ms', 'resolutionMs', 'bigint'],
  ['bucket', 'bucket', 'bigint'],
  ['count', 'count', 'integer'],
  ['cpu_sum', 'cpuSum', 'float8'],
  ['cpu_max', 'cpuMax', 'float8'],
  ['mem_used_sum', 'memUsedSum', 'float8'],
  ['mem_total_max', 'memTotalMax', 'float8'],
  ['storage_used_sum', 'storageUsedSum', 'float8'],
  ['storage_total_max', 'storageTotalMax', 'float8'],
  ['temp_sum', 'tempSum', 'float8'],
  ['temp_count', 'tempCount', 'integer'],
  ['load_sum', 'loadSum', 'float8'],
  ['load_count', 'loadCount', 'integer'],
  ['uptime_max', 'uptimeMax', 'float8'],
];

/** How a bucket already stored takes in an aggregate: sums and counts add, maxima take the larger. */
const MERGE = COLUMNS.slice(3)
  .map(([column]) =>
    column.endsWith('_max')
      ? `${column} = GREATEST(p.${column}, excluded.${column})`
      : `${column} = p.${column} + excluded.${column}`,
  )
  .join(', ');

const UPSERT =
  `INSERT INTO ${TABLE} AS p (${COLUMNS.map(([column]) => column).join(', ')}) ` +
  `SELECT * FROM unnest(${COLUMNS.map(([, , type]) => `?::${type}[]`).join(', ')}) ` +
  `ON CONFLICT (device, resolution_ms, bucket) DO UPDATE SET ${MERGE}`;

/** Aggregates written per statement (each column one array parameter). */
const ROWS_PER_WRITE = 5000;

/** The metrics time series in the PostgreSQL table device_metric_points (migration version 2). */
export class PgMetricsSeries implements MetricsSeriesRecords {
  constructor(private readonly storage: PgStorage) {}

  add(aggregates: readonly (MetricsBucketKey & MetricsAggregate)[]): void {
    if (aggregates.length === 0) return;
    const statements: { sql: string; params: unknown[] }[] = [];
    for (let first = 0; first < aggregates.length; first += ROWS_PER_WRITE) {
      const rows = aggregates.slice(first, first + ROWS_PER_WRITE);
      statements.push({ sql: UPSERT, params: COLUMNS.map(([, field]) => rows.map((row) => row[field])) });
    }
    // one statement is atomic by itself; several share a transaction (the caller's, when one is open)
    if (statements.length === 1) this.storage.run(statements);
    else this.storage.savepoint(() => this.storage.run(statements));
  }

  points(query: MetricsPointsQuery): (MetricsAggregate & { t: number })[] {
    const { device, resolutionMs, bucket, toBucket, stepMs } = query;
    const { rows } = this.storage.query(
      `SELECT (bucket - ((bucket % ?::bigint) + ?::bigint) % ?::bigint) AS t, sum(count),
           sum(cpu_sum), max(cpu_max), sum(mem_used_sum), max(mem_total_max),
           sum(storage_used_sum), max(storage_total_max), sum(temp_sum), sum(temp_count),
           sum(load_sum), sum(load_count), max(uptime_max)
         FROM ${TABLE}
         WHERE device = ? AND resolution_ms = ? AND bucket >= ? AND bucket < ?
         GROUP BY t ORDER BY t`,
      [stepMs, stepMs, stepMs, device, resolutionMs, bucket, toBucket],
    );
    return rows.map((row) => {
      const [t, count, cpuSum, cpuMax, memUsedSum, memTotalMax, storageUsedSum, storageTotalMax, ...rest] =
        row.map(Number);
      const [tempSum, tempCount, loadSum, loadCount, uptimeMax] = rest;
      return {
        t: t!,
        count: count!,
        cpuSum: cpuSum!,
        cpuMax: cpuMax!,
        memUsedSum: memUsedSum!,
        memTotalMax: memTotalMax!,
        storageUsedSum: storageUsedSum!,
        storageTotalMax: storageTotalMax!,
        tempSum: tempSum!,
        tempCount: tempCount!,
        loadSum: loadSum!,
        loadCount: loadCount!,
        uptimeMax: uptimeMax!,
      };
    });
  }

  deleteOldest(resolutionMs: number, bucket: number, limit: number): number {
    // by row address (a TID scan): the rows the age index found are deleted without a second lookup by key
    return this.storage.query(
      `DELETE FROM ${TABLE} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${TABLE} WHERE resolution_ms = ? AND bucket < ? ORDER BY bucket LIMIT ?))`,
      [resolutionMs, bucket, limit],
    ).rowCount;
  }

  deleteDevice(device: string): void {
    this.storage.query(`DELETE FROM ${TABLE} WHERE device = ?`, [device]);
  }
}
