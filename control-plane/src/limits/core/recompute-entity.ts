import { failedPrecondition } from '@outpost/shared';
import { reservation, settleActiveLimit, settleActiveSize } from './active-values.js';
import type { Allowance, LimitPool, TreeDiff, TreeState } from './model.js';
import { entityKind, limitName, poolName } from './resource-names.js';

export interface EntityChange {
  /** the one entity whose allowances changed (its regions and the rest of the tree did not) */
  entity: string;
  /** all its allowances after the change, every service */
  allowances: readonly Allowance[];
  /** its current pools (service, organization) or limits (project) */
  own: TreeState;
  /** the current pools up the source chain of `own` (more is fine) */
  ancestors: readonly LimitPool[];
}

/**
 * The incremental path: when only one entity's allowance values changed (say, a service-level plan was
 * edited), only its own pools or limits and the pools up its source chain change, and the caller need not
 * read the whole tree. Gives the same result as recomputeTree over a settled tree. Returns undefined when the
 * change would create or delete a pool or limit: then run recomputeTree.
 */
export function recomputeEntity(change: EntityChange): TreeDiff | undefined {
  const diff: TreeDiff = {
    createdPools: [],
    updatedPools: [],
    deletedPools: [],
    createdLimits: [],
    updatedLimits: [],
    deletedLimits: [],
  };
  const isProject = entityKind(change.entity) === 'project';
  const configured = new Map<string, number>();
  for (const { resource, region, value } of change.allowances) {
    const name = isProject ? limitName(change.entity, region, resource) : poolName(change.entity, region, resource);
    configured.set(name, (configured.get(name) ?? 0) + value);
  }
  const own: readonly { name: string }[] = isProject ? change.own.limits : change.own.limitPools;
  const existing = new Set(own.map((item) => item.name));
  if ([...configured.keys()].some((name) => !existing.has(name))) return undefined;

  const chain = new Map(change.ancestors.map((pool) => [pool.name, pool]));
  const touched = new Set<string>();
  const propagate = (source: string, delta: number): void => {
    let name = source;
    while (delta !== 0 && name !== '') {
      const pool = chain.get(name);
      if (!pool) throw failedPrecondition(`source pool "${name}" was not given`);
      const reserved = pool.reserved + delta;
      const activeSize = settleActiveSize(pool.configuredSize, reserved);
      delta = reservation(pool.configuredSize, activeSize) - reservation(pool.configuredSize, pool.activeSize);
      chain.set(name, { ...pool, reserved, activeSize });
      touched.add(name);
      name = pool.source;
    }
  };

  if (isProject) {
    for (const limit of change.own.limits) {
      const value = configured.get(limit.name);
      if (value === undefined && limit.usage === 0) return undefined; // the limit goes
      const next = value ?? 0;
      const active = settleActiveLimit(next, limit.usage, limit.activeLimit);
      if (next === limit.configuredLimit && active === limit.activeLimit) continue;
      diff.updatedLimits.push({ ...limit, configuredLimit: next, activeLimit: active });
      const delta = reservation(next, active) - reservation(limit.configuredLimit, limit.activeLimit);
      for (const source of limit.sources) propagate(source, delta);
    }
  } else {
    for (const pool of change.own.limitPools) {
      const value = configured.get(pool.name);
      if (value === undefined && pool.reserved === 0) return undefined; // the pool may go
      const next = value ?? 0;
      const activeSize = settleActiveSize(next, pool.reserved);
      if (next === pool.configuredSize && activeSize === pool.activeSize) continue;
      diff.updatedPools.push({ ...pool, configuredSize: next, activeSize });
      propagate(pool.source, reservation(next, activeSize) - reservation(pool.configuredSize, pool.activeSize));
    }
  }
  for (const name of touched) {
    const pool = chain.get(name);
    if (pool) diff.updatedPools.push(pool);
  }
  return diff;
}
