import { describe, expect, it } from 'vitest';
import { FailedAuthLimiter } from '../../src/iam/failed-auth-limiter.js';

describe('FailedAuthLimiter', () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('lets a source fail maxFailures times, then answers how long to wait', () => {
    const time = clock();
    const limiter = new FailedAuthLimiter({ maxFailures: 3, periodSeconds: 30 }, time.now);
    expect([limiter.fail('a'), limiter.fail('a'), limiter.fail('a')]).toEqual([undefined, undefined, undefined]);
    expect(limiter.fail('a')).toBe(10);
    expect(limiter.fail('b')).toBeUndefined();
    time.advance(4_000);
    expect(limiter.fail('a')).toBe(6);
    time.advance(6_000);
    expect(limiter.fail('a')).toBeUndefined();
    expect(limiter.fail('a')).toBe(10);
  });

  it('does not count refused attempts: knocking on does not push the wait further', () => {
    const time = clock();
    const limiter = new FailedAuthLimiter({ maxFailures: 1, periodSeconds: 10 }, time.now);
    limiter.fail('a');
    for (let i = 0; i < 100; i++) limiter.fail('a');
    time.advance(10_000);
    expect(limiter.fail('a')).toBeUndefined();
  });

  it('remembers at most maxSources, forgetting the one that failed longest ago', () => {
    const limiter = new FailedAuthLimiter({ maxFailures: 1, periodSeconds: 60, maxSources: 2 }, clock().now);
    limiter.fail('a');
    limiter.fail('b');
    limiter.fail('c');
    expect(limiter.size).toBe(2);
    expect(limiter.fail('a')).toBeUndefined();
    expect(limiter.fail('c')).toBe(60);
  });
});
