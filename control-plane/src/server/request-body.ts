import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '@outpost/shared';
import type { z } from 'zod';

/** Parses a request body with a zod schema; a mismatch becomes INVALID_ARGUMENT naming each bad field. */
export function parseRequestBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  throw invalidArgument(`invalid request body: ${problems.join('; ')}`);
}

/** Whether the request announced a body (Content-Length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * Whether part of the request's body has not arrived yet. An answer given then should close the connection
 * (`Connection: close`): otherwise the server goes on reading and dropping the rest of the body.
 */
export const hasUnreadBody = (req: IncomingMessage): boolean => hasBody(req) && !req.complete;
