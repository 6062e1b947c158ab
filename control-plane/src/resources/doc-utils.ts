import { deepEqual, invalidArgument } from '@outpost/shared';
import type { Doc } from './resource-table.js';

/** Whether a JSON value is an object (a document or a member holding one), not an array or a scalar. */
export const isDocument = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function asDocument(body: unknown, what: string): Doc {
  if (!isDocument(body)) throw invalidArgument(`${what} must be a JSON object`);
  return body;
}

/** A stored document's JSON text as a document: the storage's decode point. */
export function parseDocument(text: string): Doc {
  const value: unknown = JSON.parse(text);
  if (!isDocument(value)) throw new Error('a stored document is not a JSON object');
  return value;
}

/** The object `doc` holds at `key`, or an empty one where it holds none (or not an object). */
export const memberDocument = (doc: Doc | null | undefined, key: string): Doc => {
  const member = doc?.[key];
  return isDocument(member) ? member : {};
};

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
    const storedMembers = new Map(Object.entries(stored));
    const expectedMembers = new Map(Object.entries(expected));
    for (const key of new Set([...storedMembers.keys(), ...expectedMembers.keys()])) {
      if (!looselyEqual(storedMembers.get(key), expectedMembers.get(key))) return false;
    }
    return true;
  }
  return false;
}

/** True when `path` is `prefix` or lies under it. */
export const isAtOrUnder = (path: string, prefix: string): boolean => path === prefix || path.startsWith(prefix + '.');
