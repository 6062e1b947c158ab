import { describe, expect, it } from 'vitest';
import { jitteredRetryAfterMs, retryAfterMs } from '../../src/retry/retry-after.js';

describe('retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(' 0 ')).toBe(0);
  });

  it('reads an HTTP date relative to now, never below 0', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('caps a long wait at 5 minutes', () => {
    expect(retryAfterMs('86400')).toBe(5 * 60_000);
  });

  it('is undefined without a header or with one it cannot read', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('-5')).toBeUndefined();
  });
});

describe('jitteredRetryAfterMs', () => {
  it('spreads the retry between the wait asked for and twice it', () => {
    expect(jitteredRetryAfterMs(4000, () => 0)).toBe(4000);
    expect(jitteredRetryAfterMs(4000, () => 0.5)).toBe(6000);
    expect(jitteredRetryAfterMs(4000, () => 0.999)).toBe(7996);
  });
});
