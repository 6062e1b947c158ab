/** The longest Retry-After the agent honours: a server asking for more is retried after this. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * The wait a Retry-After header asks for (delay-seconds or an HTTP date, RFC 9110 §10.2.3), in milliseconds and
 * at most 5 minutes; undefined when there is none or it cannot be read.
 */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  // an HTTP date names its weekday and month (Date.parse alone would take '-5' for a year)
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : /^[a-z]{3}, /i.test(text) ? Date.parse(text) - now : NaN;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/**
 * When to try again after a refusal that asked for `waitMs`: between that and twice that, so that the many agents
 * one busy server turned away at once do not all come back in the same second.
 */
export function jitteredRetryAfterMs(waitMs: number, random: () => number): number {
  return Math.round(waitMs * (1 + random()));
}
