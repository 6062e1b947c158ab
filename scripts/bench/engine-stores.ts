/**
 * Benchmark: the engine's stores (issue 22) on SQLite and on PostgreSQL, through the services that use them.
 *
 * For each store (SQLite: a fresh file in a temporary folder; PostgreSQL: a throwaway cluster, fsync on, skipped
 * with a note on stderr when Debian's postgresql package is missing), in this process, on the built control plane:
 *   device_credential_lookups_per_s   a bearer credential to its device (DeviceCredentials.deviceOf), 20,000
 *                                     lookups among 5,000 devices: what every agent link and download costs
 *   api_key_authentications_per_s     ApiKeyStore.authenticate of a valid secret, 20,000 among 100 keys
 *   failed_authentications_per_s      the same with a wrong secret (it looks up the key it names and the admin's)
 *   metrics_samples_recorded_per_s    MetricsHistory.record, 100 batches of 1,000 devices' samples a minute apart
 *   metrics_query_p50_ms/_p99_ms      one device's last two hours at a 5-minute step (minute buckets), 200 queries
 * Every figure carries "store"; host_load_avg_1m tells how busy the machine was (the figures depend on it).
 *
 * Output: one JSON line per figure on stdout, progress on stderr. Run from the repository root:
 *   npm run build && npx tsx scripts/bench/engine-stores.ts
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { MetricsSample } from '@outpost/shared';
import { parseBenchFlags } from './lib/bench-flags.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import type { Reporter } from './lib/report.js';
import { seededRandom, summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { monotonicMs } from './lib/time.js';

const DEVICES = 5_000;
const LOOKUPS = 20_000;
const KEYS = 100;
const METRICS_DEVICES = 1_000;
const METRICS_BATCHES = 100;
const QUERIES = 200;
const PARENT = 'projects/bench/regions/eu';
const MINUTE_MS = 60_000;

parseBenchFlags({
  script: 'engine-stores.ts',
  summary:
    "The engine's stores on SQLite and on PostgreSQL (a throwaway cluster, skipped without Debian's postgresql " +
    'package), through the services that use them: credential lookups, API key checks, metrics history. One JSON ' +
    'line per figure on stdout, progress on stderr.',
  flags: {},
});
requireBuiltPackages(['shared', 'control-plane']);
const { openDatabase } = await import('../../control-plane/dist/resources/storage/sqlite/open-database.js');
const { ResourceEngine } = await import('../../control-plane/dist/resources/resource-engine.js');
const { PgStorage } = await import('../../control-plane/dist/resources/storage/postgres/pg-storage.js');
const { DeviceCredentials } = await import('../../control-plane/dist/devices/device-credentials.js');
const { ApiKeyStore } = await import('../../control-plane/dist/iam/api-key-store.js');
const { MetricsHistory } = await import('../../control-plane/dist/metrics/metrics-history.js');
const { postgresMissing, startPostgresCluster } = await import('../../control-plane/test/helpers/postgres-cluster.js');

type Engine = InstanceType<typeof ResourceEngine>;

/** Calls `fn(i)` `count` times; the calls per second. */
function rate(count: number, fn: (i: number) => unknown): number {
  const started = monotonicMs();
  for (let i = 0; i < count; i++) fn(i);
  return count / ((monotonicMs() - started) / 1000);
}

const sampleOf = (i: number): MetricsSample => ({
  time: new Date(0).toISOString(),
  cpu: { usagePercent: i % 100 },
  memory: { totalBytes: 1 << 30, usedBytes: (i % 100) << 20 },
  storage: [{ mount: '/', totalBytes: 1 << 30, usedBytes: 1 << 29 }],
  temperatureCelsius: 40 + (i % 10),
  load1: (i % 4) / 2,
  uptimeSeconds: i,
});

function measure(engine: Engine, report: Reporter): void {
  const random = seededRandom(22);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

  const credentials = new DeviceCredentials(engine.stores.deviceCredentials);
  const devices = Array.from({ length: DEVICES }, (_, i) => `${PARENT}/devices/d-${i}`);
  const secrets = engine.transaction(() => devices.map((device) => credentials.issue(device)));
  report.figure(
    'device_credential_lookups_per_s',
    rate(LOOKUPS, () => credentials.deviceOf(pick(secrets))),
    { unit: '1/s', samples: LOOKUPS },
  );

  const keys = new ApiKeyStore(engine.stores.apiKeys);
  keys.ensureBootstrapAdminKey();
  const grants = [{ permission: 'services/devices.outpost/permissions/devices.get', scope: '*' }];
  const keySecrets = Array.from({ length: KEYS }, (_, i) => keys.create({ displayName: `k${i}`, grants }).secret);
  report.figure(
    'api_key_authentications_per_s',
    rate(LOOKUPS, () => keys.authenticate(pick(keySecrets))),
    { unit: '1/s', samples: LOOKUPS },
  );
  report.figure(
    'failed_authentications_per_s',
    rate(LOOKUPS, () => keys.authenticate(`${pick(keySecrets)}x`)),
    { unit: '1/s', samples: LOOKUPS },
  );

  const history = new MetricsHistory(engine.stores.metricsSeries, { retentionDays: 30 });
  const t0 = Date.parse('2030-01-01T00:00:00Z');
  const recorded = rate(METRICS_BATCHES, (batch) =>
    history.record(
      devices
        .slice(0, METRICS_DEVICES)
        .map((device, i) => ({ device, timeMs: t0 + batch * MINUTE_MS, sample: sampleOf(i + batch) })),
    ),
  );
  report.figure('metrics_samples_recorded_per_s', recorded * METRICS_DEVICES, {
    unit: '1/s',
    samples: METRICS_BATCHES * METRICS_DEVICES,
  });
  const nowMs = t0 + METRICS_BATCHES * MINUTE_MS;
  const latencies = Array.from({ length: QUERIES }, () => {
    const started = monotonicMs();
    const series = history.query({
      device: pick(devices.slice(0, METRICS_DEVICES)),
      fromMs: nowMs - 120 * MINUTE_MS,
      toMs: nowMs,
      stepMs: 5 * MINUTE_MS,
      nowMs,
    });
    if (series.points.length === 0) throw new Error('a metrics query found no points');
    return monotonicMs() - started;
  });
  const { p50, p99 } = summarize(latencies);
  report.figure('metrics_query_p50_ms', p50, { unit: 'ms', samples: QUERIES });
  report.figure('metrics_query_p99_ms', p99, { unit: 'ms', samples: QUERIES });
  report.figure('host_load_avg_1m', loadavg()[0]!);
}

await withTempDir('outpost-bench-stores-', async (dir) => {
  const sqlite = createReporter('engine-stores', { store: 'sqlite' });
  sqlite.progress('SQLite');
  const db = openDatabase(join(dir, 'outpost.db'));
  try {
    measure(new ResourceEngine(db), sqlite);
  } finally {
    db.close();
  }

  const missing = postgresMissing();
  if (missing !== undefined) {
    sqlite.progress(`PostgreSQL skipped: ${missing}`);
    return;
  }
  const postgres = createReporter('engine-stores', { store: 'postgres' });
  postgres.progress('PostgreSQL');
  const cluster = await startPostgresCluster();
  try {
    const storage = new PgStorage(cluster.createDatabase());
    try {
      measure(new ResourceEngine(storage), postgres);
    } finally {
      storage.close();
    }
  } finally {
    cluster.stop();
  }
});
