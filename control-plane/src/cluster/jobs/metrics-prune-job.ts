import type { MetricsHistory } from '../../metrics/metrics-history.js';
import { PeriodicJob } from './periodic-job.js';

const METRICS_PRUNE_EVERY_MS = 10 * 60_000;

/** Drops the metrics history's buckets past their tier's retention (metrics/downsampling.ts), every ten minutes, in slices. */
export function metricsPruneJob(
  history: Pick<MetricsHistory, 'prune'>,
  onError: (err: unknown, what: string) => void,
  now: () => number = Date.now,
): PeriodicJob {
  return new PeriodicJob({
    name: 'metrics-history-prune',
    everyMs: METRICS_PRUNE_EVERY_MS,
    run: async (stopped) => void (await history.prune(now(), stopped)),
    onError,
  });
}
