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
