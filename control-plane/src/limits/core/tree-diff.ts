import type { Limit, LimitPool, TreeDiff, TreeState } from './model.js';

/** What changed from `previous` to `next`: only model fields count, other stored fields are ignored. */
export function diffTree(previous: TreeState, next: TreeState): TreeDiff {
  const diff: TreeDiff = {
    createdPools: [],
    updatedPools: [],
    deletedPools: [],
    createdLimits: [],
    updatedLimits: [],
    deletedLimits: [],
  };
  const oldPools = new Map(previous.limitPools.map((pool) => [pool.name, pool]));
  for (const pool of next.limitPools) {
    const old = oldPools.get(pool.name);
    if (!old) diff.createdPools.push(pool);
    else if (!samePool(old, pool)) diff.updatedPools.push(pool);
    oldPools.delete(pool.name);
  }
  diff.deletedPools.push(...oldPools.keys());

  const oldLimits = new Map(previous.limits.map((limit) => [limit.name, limit]));
  for (const limit of next.limits) {
    const old = oldLimits.get(limit.name);
    if (!old) diff.createdLimits.push(limit);
    else if (!sameLimit(old, limit)) diff.updatedLimits.push(limit);
    oldLimits.delete(limit.name);
  }
  diff.deletedLimits.push(...oldLimits.keys());
  return diff;
}

export const isEmptyDiff = (diff: TreeDiff): boolean =>
  Object.values(diff).every((list: unknown[]) => list.length === 0);

function samePool(a: LimitPool, b: LimitPool): boolean {
  return (
    a.service === b.service &&
    a.resource === b.resource &&
    a.region === b.region &&
    a.configuredSize === b.configuredSize &&
    a.activeSize === b.activeSize &&
    a.reserved === b.reserved &&
    a.source === b.source
  );
}

function sameLimit(a: Limit, b: Limit): boolean {
  return (
    a.service === b.service &&
    a.resource === b.resource &&
    a.region === b.region &&
    a.configuredLimit === b.configuredLimit &&
    a.activeLimit === b.activeLimit &&
    a.usage === b.usage &&
    a.sources.length === b.sources.length &&
    a.sources.every((source, i) => source === b.sources[i])
  );
}
