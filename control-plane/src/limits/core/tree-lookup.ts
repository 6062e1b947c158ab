import type { Limit, LimitPool, TreeState } from './model.js';

/** The current pools and limits, by name and by owner (the entity before `/limitPools/` or `/limits/`). */
export interface TreeLookup {
  pool(name: string): LimitPool | undefined;
  limit(name: string): Limit | undefined;
  poolsOf(owner: string): readonly LimitPool[];
  limitsOf(project: string): readonly Limit[];
}

export function lookupTree(state: TreeState): TreeLookup {
  const pools = new Map(state.limitPools.map((pool) => [pool.name, pool]));
  const limits = new Map(state.limits.map((limit) => [limit.name, limit]));
  const poolsByOwner = groupBy(state.limitPools, '/limitPools/');
  const limitsByOwner = groupBy(state.limits, '/limits/');
  return {
    pool: (name) => pools.get(name),
    limit: (name) => limits.get(name),
    poolsOf: (owner) => poolsByOwner.get(owner) ?? [],
    limitsOf: (project) => limitsByOwner.get(project) ?? [],
  };
}

function groupBy<T extends { name: string }>(items: readonly T[], separator: string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const owner = item.name.slice(0, item.name.indexOf(separator));
    const group = groups.get(owner) ?? [];
    group.push(item);
    groups.set(owner, group);
  }
  return groups;
}
