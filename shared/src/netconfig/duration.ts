const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration such as "300s", "1.5s", "5m", "1h30m" or "250ms", in milliseconds; undefined when malformed.
 * A bare number is refused: "300" could mean seconds or milliseconds.
 */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount = '', unit = ''] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (UNIT_MS[unit] ?? Number.NaN);
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/** A duration's problem within [min, max] milliseconds, or undefined when it is fine. */
export function durationProblem(text: string, minMs: number, maxMs: number): string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return `${JSON.stringify(text.slice(0, 40))} is not a duration such as "300s", "5m" or "1h30m"`;
  if (ms < minMs || ms > maxMs) return `${text} is out of range (${formatMs(minMs)} to ${formatMs(maxMs)})`;
  return undefined;
}

const formatMs = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);
