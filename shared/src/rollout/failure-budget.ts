/** How many failed devices a wave tolerates: `--max-failures N` or `--max-failures P%`. */
export type FailureBudget = { kind: 'count'; count: number } | { kind: 'percent'; percent: number };

/** `3` or `10%` (a whole number of devices, or a percentage from 0 to 100 of the wave). */
export function parseFailureBudget(text: string): FailureBudget {
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(trimmed);
  if (percent) {
    const value = Number(percent[1]);
    if (value > 100) throw new Error(`"${text}": a percentage of failures is at most 100%`);
    return { kind: 'percent', percent: value };
  }
  if (/^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) return { kind: 'count', count: Number(trimmed) };
  throw new Error(`"${text}" is not a failure budget: write a number of devices (3) or a percentage (10%)`);
}

/**
 * The budget of the wave at `index` when none was given: the first wave (the canary) halts at any failure,
 * later waves at more than 10 % of their devices.
 */
export const defaultFailureBudget = (index: number): FailureBudget =>
  index === 0 ? { kind: 'count', count: 0 } : { kind: 'percent', percent: 10 };

/** The most failures a wave of `size` devices may have and still go on. */
export function allowedFailures(budget: FailureBudget, size: number): number {
  return budget.kind === 'count' ? budget.count : Math.floor((size * budget.percent) / 100);
}

export const describeBudget = (budget: FailureBudget): string =>
  budget.kind === 'count' ? `${budget.count}` : `${budget.percent}%`;
