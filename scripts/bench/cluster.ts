/**
 * Benchmark (issue 23, first figure): watch delivery across control-plane replicas. A PostgreSQL (durable, in a
 * temporary folder) and two replicas as real server processes (control-plane/dist) on it. A STATELESS watch of
 * deviceTypes is open on each; this process creates 300 device types through replica A, one after the other,
 * and times each from the create request to its change arriving on each watch:
 *   watch_delivery_across_replicas_p50_ms / _p99_ms   on B's watch (A notifies B; B reads the shared log)
 *                                                     goal p99 < 200 ms
 *   watch_delivery_same_replica_p99_ms                on A's watch, for comparison
 *   create_ack_p50_ms                                 the create's answer on A
 * Needs `npm run build` and PostgreSQL (apt-get install postgresql). The other figures the issue names (devices
 * connected per cluster, cross-replica command round trip) need presence and routing, not built yet.
 */
import { OutpostClient } from '@outpost/shared';
import { startPostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import { startReplica } from '../../test/integration/helpers/cluster-replicas.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import { percentile } from './lib/stats.js';

const WRITES = 300;
requireBuiltPackages(['shared', 'control-plane']);
const report = createReporter('cluster');
const postgres = await startPostgresCluster();
const database = postgres.createDatabase();
const a = await startReplica(database);
const b = await startReplica(database);

/** Times at which each name's change arrived on a watch through `client`. */
function watchArrivals(
  client: OutpostClient,
  signal: AbortSignal,
): { arrivals: Map<string, number>; ready: Promise<void> } {
  const arrivals = new Map<string, number>();
  const stream = client.stream<Record<string, unknown>>('POST', '/v1/deviceTypes:watch', {
    body: { type: 'STATELESS' },
    signal,
  });
  const ready = stream.next().then(() => undefined);
  void ready.then(async () => {
    try {
      for await (const response of stream) {
        const now = performance.now();
        for (const match of JSON.stringify(response).matchAll(/"name":"(deviceTypes\/[a-z0-9-]+)"/g)) {
          if (!arrivals.has(match[1]!)) arrivals.set(match[1]!, now);
        }
      }
    } catch {
      // aborted at the end
    }
  });
  return { arrivals, ready };
}

try {
  const controller = new AbortController();
  const onB = watchArrivals(b.admin, controller.signal);
  const onA = watchArrivals(a.admin, controller.signal);
  await Promise.all([onA.ready, onB.ready]);
  report.progress(`replicas ${a.url} and ${b.url}; ${WRITES} creates through A`);
  const across: number[] = [];
  const same: number[] = [];
  const acks: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const name = `deviceTypes/bench-${i}`;
    const sent = performance.now();
    await a.admin.create('', 'deviceTypes', { name, architecture: 'AMD64' });
    acks.push(performance.now() - sent);
    while (!onB.arrivals.has(name) || !onA.arrivals.has(name)) await new Promise((resolve) => setImmediate(resolve));
    across.push(onB.arrivals.get(name)! - sent);
    same.push(onA.arrivals.get(name)! - sent);
  }
  controller.abort();
  report.figure('watch_delivery_across_replicas_p50_ms', percentile(across, 50), { unit: 'ms', samples: WRITES });
  report.figure('watch_delivery_across_replicas_p99_ms', percentile(across, 99), {
    unit: 'ms',
    samples: WRITES,
    goal: '<200',
  });
  report.figure('watch_delivery_same_replica_p99_ms', percentile(same, 99), { unit: 'ms', samples: WRITES });
  report.figure('create_ack_p50_ms', percentile(acks, 50), { unit: 'ms', samples: WRITES });
} finally {
  await Promise.all([a.stop(), b.stop()]);
  postgres.stop();
}
