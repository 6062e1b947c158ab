/** The SQL function the store registers: outpost_name_match(value, pattern) → 1 or 0. */
export const NAME_MATCH_SQL_FUNCTION = 'outpost_name_match';

/** A name pattern has a wildcard when one of its '/'-separated segments is '-'. */
export const hasNameWildcard = (pattern: string): boolean => pattern.split('/').includes('-');

/** '-' segments of the pattern match any one segment; otherwise the segments must be equal, and as many. */
export function nameMatches(pattern: string, value: string): boolean {
  const want = pattern.split('/');
  const have = value.split('/');
  return want.length === have.length && want.every((segment, i) => segment === '-' || segment === have[i]);
}

/** The implementation of NAME_MATCH_SQL_FUNCTION: argument order (value, pattern); non-text value → 0. */
export function nameMatchSql(value: unknown, pattern: unknown): number {
  return typeof value === 'string' && typeof pattern === 'string' && nameMatches(pattern, value) ? 1 : 0;
}
