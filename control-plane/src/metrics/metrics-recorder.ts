import { metricsSampleSchema } from '@outpost/shared';
import type { Device, MetricsSample } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { MetricsHistory } from './metrics-history.js';

export interface MetricsRecorder {
  /** writes what is queued now */
  flush(): void;
  stop(): void;
}

/**
 * Taps the devices' change feed for the metrics samples the gateway stores in `status.metrics` (only the
 * latest is kept there) and adds each new one to the history, in batches; a deleted device's history goes
 * with it. Samples are placed at the time the server stored them, not the device's clock, which may be
 * wrong before it synchronised. Old buckets are pruned by a background job (cluster/jobs/metrics-prune-job.ts).
 */
export function recordDeviceMetrics(
  devices: ResourceHandle<Device>,
  history: MetricsHistory,
  onError: (err: unknown, what: string) => void,
): MetricsRecorder {
  let queue: { device: string; timeMs: number; sample: MetricsSample }[] = [];
  let forgotten: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = (): void => {
    clearImmediate(scheduled);
    scheduled = undefined;
    const entries = queue;
    const gone = forgotten;
    queue = [];
    forgotten = [];
    try {
      history.record(entries);
      for (const device of gone) history.forget(device);
    } catch (err) {
      // history is a record of the past: samples that cannot be written (a full disk) are dropped, not retried
      onError(err, `storing ${entries.length} metrics samples`);
    }
  };

  const unsubscribe = devices.subscribe((change) => {
    // the replica that stored a report records its sample in the history they share
    if (change.foreign) return;
    if (change.after === null) forgotten.push(change.name);
    else {
      const sample = metricsOf(change.after);
      if (sample === undefined || sample.time === metricsOf(change.before)?.time) return;
      queue.push({ device: change.name, timeMs: Date.parse(change.time), sample });
    }
    scheduled ??= setImmediate(flush); // listeners run on the writer's path: only enqueue here
  });
  return {
    flush,
    stop() {
      unsubscribe();
      flush();
    },
  };
}

function metricsOf(device: Device | null): MetricsSample | undefined {
  const metrics = device?.status?.metrics;
  if (metrics === undefined) return undefined;
  const parsed = metricsSampleSchema.safeParse(metrics);
  return parsed.success ? parsed.data : undefined;
}
