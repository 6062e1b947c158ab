import { settleActiveLimit, settleActiveSize, reservation } from './active-values.js';
import { indexHierarchy, type HierarchyIndex } from './hierarchy.js';
import { materializeAssignment } from './materialize-assignment.js';
import type {
  Allowance,
  AssigneeAssignment,
  Assignment,
  Hierarchy,
  Limit,
  LimitPool,
  TreeDiff,
  TreeState,
} from './model.js';
import type { PlansByName } from './plans.js';
import { entityKind, limitNameOf, parseResourceRef, poolNameOf, type ResourceRef } from './resource-names.js';
import { diffTree } from './tree-diff.js';

export interface RecomputeResult {
  /** every LimitPool and Limit as they must be, sorted by name */
  state: TreeState;
  /** `state` against the previous state: what the caller writes */
  diff: TreeDiff;
  /** assignments whose computed fields (allowances, appliedRegions, generations) changed, fully computed */
  changedAssignments: (Assignment & { assignee: string })[];
  /** assignments of entities that are no longer in the hierarchy; they give nothing, the caller deletes them */
  orphanedAssignments: AssigneeAssignment[];
}

interface Entry {
  resource: string;
  region: string;
  configured: number;
}

/**
 * What children outside a partial recompute hold of a pool inside it. A caller that recomputes only a scope
 * (an entity and its ancestors) passes, for each pool of the scope's owners, what the children left out of
 * the scope reserve there; the scope's own children are recomputed as usual.
 */
export interface ExternalDraw {
  pool: Pick<LimitPool, 'name' | 'resource' | 'region'>;
  /** the sum of their reservations */
  reserved: number;
  /** whether any of them draws from the pool at all (a child may draw with a zero reservation) */
  drawn: boolean;
}

/**
 * The desired state of every pool and limit, in one pass over the tree (linear in entities and allowances):
 * limits first, then organizations children before parents, then services, each adding what it reserves to
 * its source pool. A pool exists while its owner has an allowance for it or a child draws from it; a limit
 * exists while its project has an allowance for it or usage of it (configured 0 then, active kept).
 *
 * With `external`, the hierarchy may be a part of the tree closed upwards (every parent of an entity in it is
 * in it too): `previous` then holds only the pools and limits of its entities, and `external` what children
 * outside it hold of those pools; the result covers the part only. `index`: indexHierarchy(hierarchy), when
 * the caller has it already.
 */
export function recomputeTree(
  hierarchy: Hierarchy,
  assignments: readonly AssigneeAssignment[],
  plans: PlansByName,
  previous: TreeState,
  external: readonly ExternalDraw[] = [],
  index: HierarchyIndex = indexHierarchy(hierarchy),
): RecomputeResult {
  const allowancesOf = new Map<string, Allowance[]>();
  const changedAssignments: RecomputeResult['changedAssignments'] = [];
  const orphanedAssignments: AssigneeAssignment[] = [];
  for (const assignment of assignments) {
    if (!index.has(assignment.assignee)) {
      orphanedAssignments.push(assignment);
      continue;
    }
    const computed = materializeAssignment(assignment, plans, index.regionsOf(assignment.assignee));
    if (!sameComputed(assignment, computed)) changedAssignments.push({ ...computed, assignee: assignment.assignee });
    const list = allowancesOf.get(assignment.assignee) ?? [];
    list.push(...computed.allowances);
    allowancesOf.set(assignment.assignee, list);
  }

  const pass = new TreePass(index, allowancesOf, previous, external);
  for (const project of index.projects) pass.settleProject(project);
  for (const org of index.organizationsChildrenFirst) pass.settleOwner(org);
  for (const service of pass.services()) pass.settleOwner(service);

  const state: TreeState = {
    limitPools: pass.pools.sort(byName),
    limits: pass.limits.sort(byName),
  };
  return { state, diff: diffTree(previous, state), changedAssignments, orphanedAssignments };
}

class TreePass {
  readonly pools: LimitPool[] = [];
  readonly limits: Limit[] = [];
  private readonly reserved = new Map<string, number>();
  /** owner → pools of it that children draw from */
  private readonly drawnFrom = new Map<string, Map<string, Entry>>();
  private readonly previousLimitsOf = new Map<string, Limit[]>();
  private readonly refs = new Map<string, ResourceRef>();

  constructor(
    private readonly index: HierarchyIndex,
    private readonly allowancesOf: ReadonlyMap<string, readonly Allowance[]>,
    previous: TreeState,
    external: readonly ExternalDraw[],
  ) {
    for (const draw of external) {
      if (!draw.drawn) continue;
      const { name, resource, region } = draw.pool;
      const owner = name.slice(0, name.indexOf('/limitPools/'));
      this.reserved.set(name, (this.reserved.get(name) ?? 0) + draw.reserved);
      const pools = this.drawnFrom.get(owner) ?? new Map<string, Entry>();
      if (!pools.has(name)) pools.set(name, { resource, region, configured: 0 });
      this.drawnFrom.set(owner, pools);
    }
    for (const limit of previous.limits) {
      const project = limit.name.slice(0, limit.name.indexOf('/limits/'));
      const list = this.previousLimitsOf.get(project) ?? [];
      list.push(limit);
      this.previousLimitsOf.set(project, list);
    }
  }

  settleProject(project: string): void {
    const entries = this.entriesFromAllowances(project, (region, ref) => limitNameOf(project, region, ref));
    const previousLimits = new Map((this.previousLimitsOf.get(project) ?? []).map((limit) => [limit.name, limit]));
    for (const limit of previousLimits.values()) {
      if (!entries.has(limit.name) && limit.usage > 0) {
        entries.set(limit.name, { resource: limit.resource, region: limit.region, configured: 0 });
      }
    }
    for (const [name, entry] of entries) {
      const old = previousLimits.get(name);
      const usage = old?.usage ?? 0;
      const active = settleActiveLimit(entry.configured, usage, old?.activeLimit);
      const source = this.drawFrom(
        this.parentOf(project, entry.resource),
        entry,
        reservation(entry.configured, active),
      );
      this.limits.push({
        name,
        service: this.ref(entry.resource).service,
        resource: entry.resource,
        region: entry.region,
        configuredLimit: entry.configured,
        activeLimit: active,
        usage,
        sources: [source],
      });
    }
  }

  settleOwner(owner: string): void {
    const entries = this.entriesFromAllowances(owner, (region, ref) => poolNameOf(owner, region, ref));
    for (const [name, entry] of this.drawnFrom.get(owner) ?? []) {
      if (!entries.has(name)) entries.set(name, entry);
    }
    const isService = entityKind(owner) === 'service';
    for (const [name, entry] of entries) {
      const reserved = this.reserved.get(name) ?? 0;
      const active = settleActiveSize(entry.configured, reserved);
      const source = isService
        ? ''
        : this.drawFrom(this.parentOf(owner, entry.resource), entry, reservation(entry.configured, active));
      this.pools.push({
        name,
        service: this.ref(entry.resource).service,
        resource: entry.resource,
        region: entry.region,
        configuredSize: entry.configured,
        activeSize: active,
        reserved,
        source,
      });
    }
  }

  /** Every service that owns an allowance or that some child draws from. */
  services(): string[] {
    const owners = [...this.allowancesOf.keys(), ...this.drawnFrom.keys()];
    return [...new Set(owners.filter((owner) => entityKind(owner) === 'service'))].sort();
  }

  private parentOf(entity: string, resource: string): string {
    return this.index.parentOrganizationOf(entity) ?? this.ref(resource).service;
  }

  private ref(resource: string): ResourceRef {
    let ref = this.refs.get(resource);
    if (!ref) {
      ref = parseResourceRef(resource);
      this.refs.set(resource, ref);
    }
    return ref;
  }

  private entriesFromAllowances(
    owner: string,
    nameOf: (region: string, ref: ResourceRef) => string,
  ): Map<string, Entry> {
    const entries = new Map<string, Entry>();
    for (const allowance of this.allowancesOf.get(owner) ?? []) {
      const name = nameOf(allowance.region, this.ref(allowance.resource));
      const configured = (entries.get(name)?.configured ?? 0) + allowance.value;
      entries.set(name, { resource: allowance.resource, region: allowance.region, configured });
    }
    return entries;
  }

  /** Adds a child's reservation to the parent's pool of the same resource and region; returns that pool's name. */
  private drawFrom(parent: string, entry: Entry, amount: number): string {
    const name = poolNameOf(parent, entry.region, this.ref(entry.resource));
    this.reserved.set(name, (this.reserved.get(name) ?? 0) + amount);
    const pools = this.drawnFrom.get(parent) ?? new Map<string, Entry>();
    if (!pools.has(name)) pools.set(name, { resource: entry.resource, region: entry.region, configured: 0 });
    this.drawnFrom.set(parent, pools);
    return name;
  }
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function sameComputed(old: AssigneeAssignment, next: Assignment): boolean {
  const oldAllowances = old.allowances ?? [];
  const oldRegions = old.appliedRegions ?? [];
  return (
    old.appliedPlanSpecGeneration === next.appliedPlanSpecGeneration &&
    oldRegions.length === next.appliedRegions.length &&
    oldRegions.every((region, i) => region === next.appliedRegions[i]) &&
    oldAllowances.length === next.allowances.length &&
    oldAllowances.every((a, i) => {
      const b = next.allowances[i];
      return b !== undefined && a.resource === b.resource && a.region === b.region && a.value === b.value;
    }) &&
    old.regionalPlanOverrides.every((o, i) => o.planGeneration === next.regionalPlanOverrides[i]?.planGeneration)
  );
}
