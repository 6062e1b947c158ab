const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export const DEFAULT_METRICS_RETENTION_DAYS = 30;

/** One resolution the history is kept in, and for how long. */
export interface Tier {
  /** 'raw' (every sample), '60s', '3600s' */
  resolution: string;
  /** bucket width; 0 for raw samples */
  resolutionMs: number;
  retentionMs: number;
}

/**
 * The downsampling plan: every sample for an hour, one-minute buckets for a day, one-hour buckets for the
 * retention (default 30 days). Each tier is kept no longer than the retention.
 */
export function metricsTiers(retentionDays: number): Tier[] {
  const retentionMs = retentionDays * DAY_MS;
  return [
    { resolution: 'raw', resolutionMs: 0, retentionMs: Math.min(HOUR_MS, retentionMs) },
    { resolution: '60s', resolutionMs: MINUTE_MS, retentionMs: Math.min(DAY_MS, retentionMs) },
    { resolution: '3600s', resolutionMs: HOUR_MS, retentionMs },
  ];
}

/** The start of the bucket holding `timeMs` (the time itself for raw samples). */
export const bucketOf = (tier: Tier, timeMs: number): number =>
  tier.resolutionMs === 0 ? timeMs : Math.floor(timeMs / tier.resolutionMs) * tier.resolutionMs;

/** The finest tier still holding data from `fromMs` at `nowMs`; the coarsest when none reaches back so far. */
export function tierFor(tiers: readonly Tier[], fromMs: number, nowMs: number): Tier {
  const covering = tiers.find((tier) => fromMs >= nowMs - tier.retentionMs);
  const tier = covering ?? tiers.at(-1);
  if (tier === undefined) throw new Error('no metrics tiers');
  return tier;
}

/** "60s", "5m", "1h", "1d" or a plain number of seconds, in milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1000, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS }[match[2] ?? 's'] ?? 1000;
  const ms = Number(match[1]) * unit;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** A duration as the API writes it: whole seconds, e.g. "60s". */
export const formatDuration = (ms: number): string => `${ms / 1000}s`;
