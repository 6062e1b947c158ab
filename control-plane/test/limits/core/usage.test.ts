import { describe, expect, it } from 'vitest';
import { needsSettling, release, tryConsume } from '../../../src/limits/core/index.js';
import { limit } from './fixtures.js';

describe('tryConsume', () => {
  it('takes instances while usage stays within the active limit', () => {
    const result = tryConsume(limit({ configuredLimit: 3, activeLimit: 3, usage: 1 }), 2);
    expect(result).toMatchObject({ ok: true, limit: { usage: 3 } });
  });

  it('refuses when usage + n would pass the active limit, saying what is left', () => {
    const result = tryConsume(limit({ configuredLimit: 3, activeLimit: 3, usage: 2 }), 2);
    expect(result).toMatchObject({ ok: false, available: 1 });
  });

  it('refuses while the configured limit is below usage, even though the active one keeps its old value', () => {
    expect(tryConsume(limit({ configuredLimit: 2, activeLimit: 5, usage: 4 }), 1)).toMatchObject({
      ok: false,
      available: 0,
    });
    expect(tryConsume(limit({ configuredLimit: 2, activeLimit: 5, usage: 1 }), 1).ok).toBe(true);
  });

  it('refuses a negative or fractional count', () => {
    const l = limit({ configuredLimit: 3, activeLimit: 3, usage: 0 });
    expect(() => tryConsume(l, -1)).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }));
    expect(() => release(l, 0.5)).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }));
  });
});

describe('release', () => {
  it('returns instances, never below zero', () => {
    expect(release(limit({ configuredLimit: 3, activeLimit: 3, usage: 2 }), 1).usage).toBe(1);
    expect(release(limit({ configuredLimit: 3, activeLimit: 3, usage: 2 }), 5).usage).toBe(0);
  });

  it('tells when the active limit waits for the configured one', () => {
    expect(needsSettling(limit({ configuredLimit: 2, activeLimit: 5, usage: 1 }))).toBe(true);
    expect(needsSettling(limit({ configuredLimit: 5, activeLimit: 5, usage: 1 }))).toBe(false);
  });
});
