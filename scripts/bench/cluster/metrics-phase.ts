/**
 * The cluster benchmark's `--metrics` phase (scripts/bench/cluster.ts): the agents' every-minute metrics
 * messages, what the history they are stored in holds afterwards, and one run of the history's prune.
 */
import type pg from 'pg';
import type { SimulatorProcess } from '../lib/cluster-fleet.js';
import { cpuSecondsOf } from '../lib/process-stats.js';
import type { FigureOptions, Reporter } from '../lib/report.js';
import type { CpuMeter } from './cpu-meter.js';
import { runPacedPhase } from './paced-phase.js';

const HISTORY_TABLE = 'device_metric_points';
const HOUR_MS = 3_600_000;
// every sample is added to one bucket of each tier, so the hour tier's counts add up to the samples recorded
const SAMPLES_RECORDED = `SELECT COALESCE(sum(count), 0) AS samples FROM ${HISTORY_TABLE} WHERE resolution_ms = ${HOUR_MS}`;
const HISTORY_SIZE = `SELECT count(*) AS rows, pg_total_relation_size('${HISTORY_TABLE}') AS bytes FROM ${HISTORY_TABLE}`;
/** pg_rows_written_per_metrics counts every row: PostgreSQL's counters are read once its backends reported them */
const COUNTERS_SETTLE_MS = 11_000;
/** The prune runs as if this long had passed: the raw tier (1 h) and the one-minute tier (24 h) expire. */
const PRUNE_AHEAD_MS = 25 * HOUR_MS;

export interface MetricsPhase {
  out: Reporter;
  sims: readonly SimulatorProcess[];
  client: pg.Client;
  cpu: CpuMeter;
  /** metrics messages to send */
  count: number;
  /** at most this many device writes behind what was sent */
  ahead: number;
  /** put before every figure's name */
  prefix: string;
}

/**
 * metrics_stored_per_s, replica_cpu_us_per_metrics, pg_cpu_us_per_metrics, pg_rows_written_per_metrics,
 * db_writes_per_metrics, pg_commits_per_metrics (each after `prefix`): `count` metrics messages as fast as the
 * cluster stores them. Stored is counted
 * exactly, as the samples the history recorded (a device's second message merged into one write with its
 * first is stored once, as the device's latest sample, and counts once).
 */
export async function measureMetricsMessages(phase: MetricsPhase): Promise<void> {
  const { client, prefix } = phase;
  const figure = (name: string, value: number, options: FigureOptions): void =>
    phase.out.figure(`${prefix}${name}`, value, options);
  const outcome = await runPacedPhase({
    ...phase,
    command: (total, allowance) => ({ cmd: 'report', kind: 'metrics', total, markerUnit: 1, allowance }),
    countersSettleMs: COUNTERS_SETTLE_MS,
    exactlyStored: async () =>
      Number((await client.query<{ samples: string }>(SAMPLES_RECORDED)).rows[0]?.samples ?? 0),
  });
  const { stored, seconds, writes } = outcome;
  phase.out.progress(
    `${stored} of ${outcome.total} ${prefix === '' ? '' : 'first '}metrics messages stored in ${seconds.toFixed(1)} s (${writes} device writes)`,
  );
  figure('metrics_stored_per_s', stored / seconds, { unit: 'messages/s', samples: stored });
  figure('db_writes_per_metrics', writes / stored, { samples: stored });
  figure('pg_commits_per_metrics', outcome.commits / stored, { samples: stored });
  figure('pg_rows_written_per_metrics', outcome.rowsWritten / stored, { unit: 'rows', samples: stored });
  figure('replica_cpu_us_per_metrics', (outcome.cpu.replicas * 1e6) / stored, { unit: 'us' });
  figure('pg_cpu_us_per_metrics', (outcome.cpu.postgres * 1e6) / stored, { unit: 'us' });
}

/**
 * metrics_history_rows_per_device, metrics_history_bytes_per_device, metrics_history_bytes_per_row: the history
 * table with its indexes (pg_total_relation_size) after the phase, and metrics_history_compact_bytes_per_row
 * after VACUUM FULL; then metrics_prune_*: the history's prune
 * (MetricsHistory.prune, what the leader's metrics-history-prune job runs every ten minutes) run once from this
 * process on its own connection, as if PRUNE_AHEAD_MS had passed, timed, with its CPU here (the replica's
 * part: building and sending the deletes) and in its PostgreSQL backend, per row deleted and per device.
 */
export async function measureHistoryAndPrune(
  out: Reporter,
  client: pg.Client,
  database: string,
  devices: number,
): Promise<void> {
  const size = async (): Promise<{ rows: number; bytes: number }> => {
    const row = (await client.query<{ rows: string; bytes: string }>(HISTORY_SIZE)).rows[0];
    return { rows: Number(row?.rows ?? 0), bytes: Number(row?.bytes ?? 0) };
  };
  await client.query(`VACUUM ANALYZE ${HISTORY_TABLE}`); // the table as autovacuum keeps it, its statistics current
  const { rows, bytes } = await size();
  out.figure('metrics_history_rows_per_device', rows / devices, { unit: 'rows' });
  out.figure('metrics_history_bytes_per_device', bytes / devices, { unit: 'bytes' });
  out.figure('metrics_history_bytes_per_row', bytes / rows, { unit: 'bytes', samples: rows });
  // the phase updated each device's minute and hour buckets with every sample, leaving more dead space per row
  // than a fleet's one sample a minute does: a rewritten table and its indexes hold live rows only
  await client.query(`VACUUM FULL ANALYZE ${HISTORY_TABLE}`);
  const compact = await size();
  out.figure('metrics_history_compact_bytes_per_row', compact.bytes / compact.rows, { unit: 'bytes', samples: rows });

  const { MetricsHistory } = await import('../../../control-plane/src/metrics/metrics-history.js');
  const { DEFAULT_METRICS_RETENTION_DAYS } = await import('../../../control-plane/src/metrics/downsampling.js');
  const { PgStorage } = await import('../../../control-plane/src/resources/storage/postgres/pg-storage.js');
  const { PgMetricsSeries } =
    await import('../../../control-plane/src/resources/storage/postgres/pg-metrics-series.js');
  const storage = new PgStorage(database);
  try {
    const backend = Number(storage.query('SELECT pg_backend_pid()').rows[0]?.[0]);
    const history = new MetricsHistory(new PgMetricsSeries(storage), {
      retentionDays: DEFAULT_METRICS_RETENTION_DAYS,
    });
    const [cpuAtStart, backendAtStart] = [process.cpuUsage(), cpuSecondsOf(backend)];
    const started = performance.now();
    const deleted = await history.prune(Date.now() + PRUNE_AHEAD_MS);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuAtStart);
    const [replicaUs, pgUs] = [cpu.user + cpu.system, (cpuSecondsOf(backend) - backendAtStart) * 1e6];
    out.progress(`the prune deleted ${deleted} of ${rows} history rows in ${ms.toFixed(0)} ms`);
    out.figure('metrics_prune_rows_deleted_per_device', deleted / devices, { unit: 'rows' });
    out.figure('metrics_prune_ms', ms, { unit: 'ms' });
    out.figure('metrics_prune_replica_cpu_us_per_row', replicaUs / deleted, { unit: 'us', samples: deleted });
    out.figure('metrics_prune_pg_cpu_us_per_row', pgUs / deleted, { unit: 'us', samples: deleted });
    out.figure('metrics_prune_replica_cpu_us_per_device', replicaUs / devices, { unit: 'us' });
    out.figure('metrics_prune_pg_cpu_us_per_device', pgUs / devices, { unit: 'us' });
  } finally {
    storage.close();
  }
}
