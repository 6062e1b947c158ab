import { failedPrecondition } from '@outpost/shared';
import type { TreeDiff, TreeState } from './core/index.js';

/**
 * A child is never sized above its parent pool (spec 001 Errors 5): after a recompute, no pool may reserve
 * more than its configured size unless it already did and the change does not make it worse (a pool whose
 * own size was lowered keeps active = reserved, spec 001 "States and transitions").
 */
export function guardCapacity(previous: TreeState, diff: TreeDiff): void {
  const before = new Map(previous.limitPools.map((pool) => [pool.name, pool]));
  for (const pool of [...diff.createdPools, ...diff.updatedPools]) {
    const old = before.get(pool.name);
    if (pool.reserved > pool.configuredSize && pool.reserved > (old?.reserved ?? 0)) {
      throw failedPrecondition(
        `${pool.name} cannot back this: its children would reserve ${pool.reserved} ${pool.resource} in region ` +
          `${pool.region}, but its size is ${pool.configuredSize}`,
      );
    }
  }
}
