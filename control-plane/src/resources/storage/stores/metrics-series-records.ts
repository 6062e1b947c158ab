/** Samples of one bucket added up: sums and counts add, maxima take the larger. */
export interface MetricsAggregate {
  count: number;
  cpuSum: number;
  cpuMax: number;
  memUsedSum: number;
  memTotalMax: number;
  storageUsedSum: number;
  storageTotalMax: number;
  tempSum: number;
  tempCount: number;
  loadSum: number;
  loadCount: number;
  uptimeMax: number;
}

/** Where an aggregate goes: one bucket (its start, ms) of one device in one tier (its resolution). */
export interface MetricsBucketKey {
  device: string;
  resolutionMs: number;
  bucket: number;
}

export interface MetricsPointsQuery extends MetricsBucketKey {
  /** buckets from `bucket` (inclusive) to `toBucket` (exclusive) */
  toBucket: number;
  /** the buckets are grouped by the step (ms) they start in */
  stepMs: number;
}

/** The devices' metrics as bucketed time series in the engine's store, one row per device, tier and bucket. */
export interface MetricsSeriesRecords {
  /** Adds each aggregate into its bucket (created when new), all in one transaction; keys are distinct. */
  add(aggregates: readonly (MetricsBucketKey & MetricsAggregate)[]): void;
  /** One aggregate per step that has buckets (its start `t`, ms), in time order. */
  points(query: MetricsPointsQuery): (MetricsAggregate & { t: number })[];
  /**
   * Deletes the oldest of a tier's buckets before `bucket`, at most `limit` of them, in one transaction of its
   * own; answers how many (fewer than `limit` once none is left).
   */
  deleteOldest(resolutionMs: number, bucket: number, limit: number): number;
  deleteDevice(device: string): void;
}
