import { invalidArgument } from '@outpost/shared';
import type { Allowance } from './model.js';
import { parseResourceRef } from './resource-names.js';

const REGION = /^[a-zA-Z0-9-]{0,128}$/;

/** Refuses malformed resource references, regions and non-integer values (negative values are allowed). */
export function validateAllowances(field: string, allowances: readonly Allowance[]): void {
  allowances.forEach((allowance, i) => {
    parseResourceRef(allowance.resource);
    if (!REGION.test(allowance.region))
      throw invalidArgument(`${field}[${i}].region: invalid region "${allowance.region}"`);
    if (!Number.isSafeInteger(allowance.value)) throw invalidArgument(`${field}[${i}].value must be an integer`);
  });
}

export function validateRegion(field: string, region: string): void {
  if (!REGION.test(region)) throw invalidArgument(`${field}: invalid region "${region}"`);
}
