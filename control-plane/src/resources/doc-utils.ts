import { deepEqual, invalidArgument } from '@outpost/shared';
import type { Doc } from './resource-table.js';

export function asDocument(body: unknown, what: string): Doc {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidArgument(`${what} must be a JSON object`);
  }
  return body as Doc;
}

export const clone = <T>(value: T): T => structuredClone(value);

/** Equality of JSON documents (what the store holds: no dates, maps or prototypes to tell apart). */
export const sameDocument = (a: unknown, b: unknown): boolean => deepEqual(a, b);

/**
 * Equality for compare-and-swap: query-string values arrive as strings, so a string equals a number or
 * boolean that prints the same; objects and arrays compare member by member.
 */
export function looselyEqual(stored: unknown, expected: unknown): boolean {
  if (stored === expected) return true;
  if (stored === undefined || stored === null || expected === undefined || expected === null) {
    return (stored ?? null) === (expected ?? null);
  }
  if (typeof expected === 'string' && (typeof stored === 'number' || typeof stored === 'boolean')) {
    return String(stored) === expected;
  }
  if (typeof stored === 'string' && (typeof expected === 'number' || typeof expected === 'boolean')) {
    return stored === String(expected);
  }
  if (Array.isArray(stored) && Array.isArray(expected)) {
    return stored.length === expected.length && stored.every((v, i) => looselyEqual(v, expected[i]));
  }
  if (typeof stored === 'object' && typeof expected === 'object') {
    const keys = new Set([...Object.keys(stored), ...Object.keys(expected)]);
    for (const key of keys) {
      if (!looselyEqual((stored as Doc)[key], (expected as Doc)[key])) return false;
    }
    return true;
  }
  return false;
}

/** True when `path` is `prefix` or lies under it. */
export const isAtOrUnder = (path: string, prefix: string): boolean => path === prefix || path.startsWith(prefix + '.');
