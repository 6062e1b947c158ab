import { reservation, settleActiveLimit, settleActiveSize } from './active-values.js';
import { compareAllowances } from './allowance-key.js';
import type { HierarchyIndex } from './hierarchy.js';
import type { Allowance, Limit, LimitPool } from './model.js';
import { entityKind, limitName, parseResourceRef, poolName } from './resource-names.js';
import type { TreeLookup } from './tree-lookup.js';

export interface CapacityViolation {
  resource: string;
  region: string;
  /** the allowance asked for */
  requested: number;
  /** what the parent pool can still give this child (its configured size minus what the others reserve) */
  available: number;
  parentPool: string;
}

export type CapacityCheck = { ok: true } | { ok: false; violation: CapacityViolation };

/**
 * Whether the assignee may take `newAllowances` (its whole allowance list for one service after the change):
 * a child is never sized above its parent pool. Only raises are checked, against the parent's configured
 * size: an allowance that grows the child's reservation must fit in what the parent's configured size leaves
 * after its other children. A missing parent pool has nothing to give. A service's own assignment is exempt.
 */
export function checkCapacity(
  index: HierarchyIndex,
  tree: TreeLookup,
  assignee: string,
  newAllowances: readonly Allowance[],
): CapacityCheck {
  const kind = entityKind(assignee);
  if (kind === 'service') return { ok: true };
  for (const allowance of [...newAllowances].sort(compareAllowances)) {
    const { resource, region, value } = allowance;
    const parentOwner = index.parentOrganizationOf(assignee) ?? parseResourceRef(resource).service;
    const parentPool = poolName(parentOwner, region, resource);
    const child =
      kind === 'project'
        ? limitState(tree.limit(limitName(assignee, region, resource)))
        : poolState(tree.pool(poolName(assignee, region, resource)));
    if (value <= child.configured) continue;
    const active =
      kind === 'project'
        ? settleActiveLimit(value, child.usage, child.active)
        : settleActiveSize(value, child.reserved);
    const held = reservation(child.configured, child.active);
    const needed = reservation(value, active);
    if (needed <= held) continue;
    const parent = tree.pool(parentPool);
    const available = Math.max(0, (parent?.configuredSize ?? 0) - ((parent?.reserved ?? 0) - held));
    if (needed > available)
      return { ok: false, violation: { resource, region, requested: value, available, parentPool } };
  }
  return { ok: true };
}

interface ChildState {
  configured: number;
  active: number;
  usage: number;
  reserved: number;
}

const limitState = (limit: Limit | undefined): ChildState => ({
  configured: limit?.configuredLimit ?? 0,
  active: limit?.activeLimit ?? 0,
  usage: limit?.usage ?? 0,
  reserved: 0,
});

const poolState = (pool: LimitPool | undefined): ChildState => ({
  configured: pool?.configuredSize ?? 0,
  active: pool?.activeSize ?? 0,
  usage: 0,
  reserved: pool?.reserved ?? 0,
});
