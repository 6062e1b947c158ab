import type { Allowance } from './model.js';

/** Identifies one (resource, region) pair; regions and resource references never contain a space. */
export const allowanceKey = (resource: string, region: string): string => `${region} ${resource}`;

export const keyOf = (allowance: Pick<Allowance, 'resource' | 'region'>): string =>
  allowanceKey(allowance.resource, allowance.region);

export function allowanceValues(allowances: readonly Allowance[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const allowance of allowances)
    values.set(keyOf(allowance), (values.get(keyOf(allowance)) ?? 0) + allowance.value);
  return values;
}

/** Sums duplicates of one (resource, region), keeps first-seen order and drops entries that add up to zero. */
export function mergeAllowances(...lists: readonly (readonly Allowance[])[]): Allowance[] {
  const merged = new Map<string, Allowance>();
  for (const list of lists) {
    for (const allowance of list) {
      const key = keyOf(allowance);
      const value = (merged.get(key)?.value ?? 0) + allowance.value;
      merged.set(key, { resource: allowance.resource, value, region: allowance.region });
    }
  }
  return [...merged.values()].filter((allowance) => allowance.value !== 0);
}

export const compareAllowances = (a: Allowance, b: Allowance): number =>
  a.region === b.region
    ? a.resource < b.resource
      ? -1
      : a.resource > b.resource
        ? 1
        : 0
    : a.region < b.region
      ? -1
      : 1;
