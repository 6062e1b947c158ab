import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, shedUpgrade } from '../../src/gateway/upgrade-shedding.js';
import { EventLoopLag } from '../../src/gateway/event-loop-lag.js';

describe('shedUpgrade', () => {
  const policy = { maxLagMs: 2000 };

  it('takes new links while the loop lags less than the threshold', () => {
    expect(shedUpgrade(0, policy)).toBeUndefined();
    expect(shedUpgrade(1999, policy)).toBeUndefined();
  });

  it('refuses them from the threshold on, asking to come back after about twice the lag', () => {
    expect(shedUpgrade(2000, policy)).toEqual({ retryAfterSeconds: 4 });
    expect(shedUpgrade(2600, policy)).toEqual({ retryAfterSeconds: 6 });
  });

  it('asks for at least a second and at most MAX_RETRY_AFTER_SECONDS', () => {
    expect(shedUpgrade(100, { maxLagMs: 50 })).toEqual({ retryAfterSeconds: 1 });
    expect(shedUpgrade(10 * 60_000, policy)).toEqual({ retryAfterSeconds: MAX_RETRY_AFTER_SECONDS });
  });

  it('never refuses with a threshold of 0, nor on a lag it cannot read', () => {
    expect(shedUpgrade(60_000, { maxLagMs: 0 })).toBeUndefined();
    expect(shedUpgrade(Number.NaN, policy)).toBeUndefined();
  });
});

describe('EventLoopLag', () => {
  it('sees a turn that is still running, before any timer could tick', () => {
    const lag = new EventLoopLag(100);
    try {
      const until = performance.now() + 400;
      while (performance.now() < until); // a long synchronous turn, like a burst of upgrades handled in one go
      // at most one interval (100 ms) of the 400 ms may have passed before the turn began since the last tick
      expect(lag.lagMs).toBeGreaterThanOrEqual(200);
    } finally {
      lag.stop();
    }
  });

  it('reads the lag of a stalled clock through its injected time', () => {
    let now = 1000;
    const lag = new EventLoopLag(100, 1000, () => now);
    try {
      expect(lag.lagMs).toBe(0);
      now += 2600;
      expect(lag.lagMs).toBe(2500);
    } finally {
      lag.stop();
    }
  });
});
