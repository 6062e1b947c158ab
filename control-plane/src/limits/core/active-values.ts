/**
 * A limit's active value follows its configured value, except when the configured value falls below the
 * usage: then the previous active value stays (spec 001 "conflict" row) until usage fits again.
 */
export function settleActiveLimit(configured: number, usage: number, previousActive: number | undefined): number {
  if (configured >= usage || previousActive === undefined) return configured;
  return Math.max(previousActive, configured);
}

/** A pool's active size is its configured size, or its reserved amount when that is bigger. */
export const settleActiveSize = (configured: number, reserved: number): number => Math.max(configured, reserved);

/** What a child limit or pool holds of its source pool's reservation. */
export const reservation = (configured: number, active: number): number => Math.max(configured, active);
