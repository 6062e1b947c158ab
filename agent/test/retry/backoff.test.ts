import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createBackoff, fullJitterDelayMs } from '../../src/retry/backoff.js';

describe('full-jitter backoff', () => {
  it('stays below min(cap, base * 2^attempt)', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const delay = fullJitterDelayMs(attempt, { baseMs: 500, capMs: 30_000 }, () => r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(30_000, 500 * 2 ** attempt));
      }),
    );
  });

  it('doubles the ceiling per failed attempt up to the cap, and starts over after a reset', () => {
    const backoff = createBackoff({ baseMs: 500, capMs: 30_000 }, () => 0.5);
    const delays = Array.from({ length: 9 }, () => backoff.next());
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
    backoff.reset();
    expect(backoff.next()).toBe(250);
  });

  it('never overflows after very many attempts', () => {
    const backoff = createBackoff({ baseMs: 500, capMs: 30_000 }, () => 0.999);
    for (let i = 0; i < 5000; i++) backoff.next();
    expect(backoff.next()).toBe(29_970);
  });
});
