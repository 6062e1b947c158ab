/** Regions in `next` but not in `previous`: where accepted plans must be extended (appliedRegions grows). */
export function regionsAdded(previous: readonly string[], next: readonly string[]): string[] {
  const old = new Set(previous);
  return [...new Set(next)].filter((region) => !old.has(region)).sort();
}

/** Regions in `previous` but not in `next`: where the entity's allowances end. */
export const regionsRemoved = (previous: readonly string[], next: readonly string[]): string[] =>
  regionsAdded(next, previous);
