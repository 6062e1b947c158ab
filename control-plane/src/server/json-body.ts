import express from 'express';
import type { RequestHandler } from 'express';
import { invalidArgument } from '@outpost/shared';
import { payloadTooLarge } from './http-errors.js';

/** Deeper than any document of the API; the engine's recursive copies and diffs overflow the stack near 10,000. */
export const MAX_JSON_DEPTH = 64;

export interface JsonBodyLimits {
  /** bytes; a larger body answers 413 */
  limitBytes: number;
  maxDepth?: number;
}

/**
 * Parses a JSON request body (mount it after authentication, so an unknown caller's body is never read):
 * over `limitBytes` answers 413 (at once when Content-Length says so: express.json would first read the whole
 * body to throw it away), malformed JSON or nesting deeper than `maxDepth` 400.
 */
export function jsonBody({ limitBytes, maxDepth = MAX_JSON_DEPTH }: JsonBodyLimits): RequestHandler[] {
  return [
    (req, res, next) => {
      if (Number(req.get('content-length') ?? 0) > limitBytes) {
        res.setHeader('Connection', 'close'); // the body stays unread
        next(payloadTooLarge(`request body too large: the limit is ${limitBytes} bytes`));
        return;
      }
      next();
    },
    express.json({ limit: limitBytes }),
    (req, _res, next) => {
      if (nestingDepth(req.body, maxDepth) > maxDepth) {
        next(invalidArgument(`JSON body nested too deeply: at most ${maxDepth} levels of objects and arrays`));
        return;
      }
      next();
    },
  ];
}

/** Levels of objects and arrays in `value` (iterative: a hostile body must not overflow the stack); stops past `stopAbove`. */
export function nestingDepth(value: unknown, stopAbove: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAbove) return deepest;
    for (const child of Object.values(node))
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return deepest;
}
