export interface FailedAuthLimits {
  /** failed attempts one source may make in a burst */
  maxFailures: number;
  /** seconds in which a source earns back all of `maxFailures` (one attempt every period / maxFailures) */
  periodSeconds: number;
  /** sources remembered at most; beyond, the one that failed longest ago is forgotten */
  maxSources: number;
}

export const DEFAULT_FAILED_AUTH_LIMITS: Readonly<FailedAuthLimits> = {
  maxFailures: 20,
  periodSeconds: 60,
  maxSources: 100_000,
};

interface Bucket {
  /** attempts left at `at` (fractional: they come back continuously) */
  left: number;
  at: number;
}

/**
 * Counts failed authentications per source (a token bucket each). It only ever decides about a failure:
 * a caller that presents a valid key is let in without asking it.
 */
export class FailedAuthLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly limits: FailedAuthLimits;
  private readonly now: () => number;

  constructor(limits: Partial<FailedAuthLimits> = {}, now: () => number = Date.now) {
    this.limits = { ...DEFAULT_FAILED_AUTH_LIMITS, ...limits };
    this.now = now;
  }

  /**
   * Records a failed attempt from `source`. Returns undefined when the source was still within its limit,
   * else the whole seconds until it may try again (the attempt is then not counted: a refused source earns
   * attempts back at the same pace however often it knocks).
   */
  fail(source: string): number | undefined {
    const now = this.now();
    const bucket = this.refilled(source, now);
    if (bucket.left < 1) return Math.max(1, Math.ceil((1 - bucket.left) / this.ratePerMs() / 1000));
    bucket.left -= 1;
    this.buckets.delete(source); // re-inserted last: the map's order is the order of last failures
    this.buckets.set(source, bucket);
    this.forgetOldest();
    return undefined;
  }

  /** How many sources are remembered (those that failed and have not yet earned all their attempts back). */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(source: string, now: number): Bucket {
    const bucket = this.buckets.get(source) ?? { left: this.limits.maxFailures, at: now };
    bucket.left = Math.min(this.limits.maxFailures, bucket.left + (now - bucket.at) * this.ratePerMs());
    bucket.at = now;
    return bucket;
  }

  private ratePerMs(): number {
    return this.limits.maxFailures / (this.limits.periodSeconds * 1000);
  }

  private forgetOldest(): void {
    for (const source of this.buckets.keys()) {
      if (this.buckets.size <= this.limits.maxSources) return;
      this.buckets.delete(source);
    }
  }
}
