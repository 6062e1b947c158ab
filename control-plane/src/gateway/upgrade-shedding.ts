/**
 * Whether a replica takes a new agent link now or refuses it with 503 and Retry-After. An event loop that lags
 * this far behind cannot answer a handshake before the agent gives up on it (15 s) and tries again: taking it
 * anyway spends the authentication and welcome on links nobody waits for, and a connect wave then collapses.
 * A fast refusal costs almost nothing and tells the agent when to come back.
 */
export interface SheddingPolicy {
  /** event loop lag at which new agent links are refused; 0 never refuses */
  maxLagMs: number;
}

export interface Shed {
  /** the Retry-After the refusal carries (the agent waits this to twice this) */
  retryAfterSeconds: number;
}

/** The longest Retry-After a refusal asks for. */
export const MAX_RETRY_AFTER_SECONDS = 30;

/** A refusal when the loop lags `lagMs` or more, asking the agent to wait about twice the lag (1 to 30 s). */
export function shedUpgrade(lagMs: number, policy: SheddingPolicy): Shed | undefined {
  if (policy.maxLagMs <= 0 || !(lagMs >= policy.maxLagMs)) return undefined;
  const retryAfterSeconds = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil((2 * lagMs) / 1000)));
  return { retryAfterSeconds };
}
