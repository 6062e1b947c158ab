import { invalidArgument } from '@outpost/shared';
import type { Limit } from './model.js';

export type ConsumeResult = { ok: true; limit: Limit } | { ok: false; available: number; reason: string };

/**
 * Takes `count` instances out of a limit (a device create): refused when usage would pass the active limit or
 * the configured one. Both bind: the active value is what the pools reserve, and when the configured value fell
 * below usage (the spec's conflict row, active keeps its old value) no new instance fits until usage is back
 * under the configured value.
 */
export function tryConsume(limit: Limit, count: number): ConsumeResult {
  requireCount(count);
  const cap = Math.min(limit.activeLimit, limit.configuredLimit);
  if (limit.usage + count > cap) {
    const available = Math.max(0, cap - limit.usage);
    return {
      ok: false,
      available,
      reason: `limit ${limit.name} exhausted: usage ${limit.usage} + ${count} exceeds ${cap}`,
    };
  }
  return { ok: true, limit: { ...limit, usage: limit.usage + count } };
}

/**
 * Returns `count` instances (a device delete). Usage never goes below zero. When the limit was held above its
 * configured value by usage (needsSettling), the next recomputeTree lowers its active value.
 */
export function release(limit: Limit, count: number): Limit {
  requireCount(count);
  return { ...limit, usage: Math.max(0, limit.usage - count) };
}

/** The active value waits for the configured one (usage was above it); a recompute may now settle it. */
export const needsSettling = (limit: Limit): boolean => limit.activeLimit !== limit.configuredLimit;

function requireCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0)
    throw invalidArgument(`count must be a non-negative integer, got ${count}`);
}
