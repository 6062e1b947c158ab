export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** The link's reconnect policy (design: base 0.5 s, cap 30 s). */
export const LINK_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 30_000 };

/** "Full jitter": a uniformly random delay below min(cap, base * 2^attempt). */
export function fullJitterDelayMs(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

export interface Backoff {
  /** the delay before the next attempt; each call counts one more failed attempt */
  next(): number;
  /** forget past failures (after a stable connection) */
  reset(): void;
}

export function createBackoff(policy: BackoffPolicy, random: () => number = Math.random): Backoff {
  let attempt = 0;
  return {
    next() {
      const delay = fullJitterDelayMs(attempt, policy, random);
      attempt = Math.min(attempt + 1, 52); // 2^52 already exceeds any cap
      return delay;
    },
    reset() {
      attempt = 0;
    },
  };
}
