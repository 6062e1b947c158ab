import { ProblemList, problemText } from '@outpost/shared';
import type { z } from 'zod';

/**
 * A part's value from the spec, checked by the agent as the control plane checks it: its schema (the first issue
 * named by its path under `field`), then the part's own rules (every problem, joined).
 */
export function checkedPart<T>(
  raw: unknown,
  schema: z.ZodType<T>,
  field: string,
  check: (value: T, path: string, problems: ProblemList) => void,
): { ok: true; value: T } | { ok: false; error: string } {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${field}.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  const problems = new ProblemList();
  check(parsed.data, field, problems);
  if (!problems.empty) return { ok: false, error: problems.problems.map(problemText).join('; ') };
  return { ok: true, value: parsed.data };
}
