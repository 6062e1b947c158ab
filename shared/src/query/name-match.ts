/** A name pattern has a wildcard when one of its '/'-separated segments is '-'. */
export const hasNameWildcard = (pattern: string): boolean => pattern.split('/').includes('-');

/** '-' segments of the pattern match any one segment; otherwise the segments must be equal, and as many. */
export function nameMatches(pattern: string, value: string): boolean {
  const want = pattern.split('/');
  const have = value.split('/');
  return want.length === have.length && want.every((segment, i) => segment === '-' || segment === have[i]);
}
