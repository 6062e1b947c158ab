import { ApiError } from '@outpost/shared';
import {
  diffTree,
  indexHierarchy,
  lookupTree,
  nextPlanGeneration,
  recomputeTree,
  recomputeEntity,
  release,
  removeEntity,
  requestEffect,
  submitRequest,
  tryConsume,
  type Assignment,
  type AssigneeAssignment,
  type Hierarchy,
  type Plan,
  type RequestType,
  type TreeDiff,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { SERVICE } from './fixtures.js';

/**
 * The limits service reduced to its decisions, as the caller composes the core: every step reads one
 * snapshot, applies what the rules allow and recomputes the tree. Used by the invariant property test.
 */
export interface World {
  hierarchy: Hierarchy;
  assignments: AssigneeAssignment[];
  plans: Map<string, Plan>;
  tree: TreeState;
  pending: { assignee: string; request: RequestType }[];
}

export interface StepResult {
  world: World;
  /** the step changed allowances through the request rules (capacity-checked), not through plans or regions */
  checked: boolean;
  diff: TreeDiff | undefined;
  /** the state the recompute diffed against */
  previous: TreeState;
  /** for request-driven steps: the tree recomputeEntity gives (undefined when it defers to recomputeTree) */
  incremental?: TreeState | undefined;
}

export function startWorld(hierarchy: Hierarchy, plans: readonly Plan[], assignments: AssigneeAssignment[]): World {
  const world: World = {
    hierarchy,
    assignments,
    plans: new Map(plans.map((p) => [p.name, p])),
    tree: { limitPools: [], limits: [] },
    pending: [],
  };
  return recompute(world).world;
}

export function recompute(world: World): { world: World; diff: TreeDiff } {
  const result = recomputeTree(world.hierarchy, world.assignments, world.plans, world.tree);
  const changed = new Map(result.changedAssignments.map((a) => [a.assignee, a]));
  const assignments = world.assignments.map((a) => changed.get(a.assignee) ?? a);
  return { world: { ...world, assignments, tree: result.state }, diff: result.diff };
}

const snapshotOf = (world: World) => ({
  index: indexHierarchy(world.hierarchy),
  tree: lookupTree(world.tree),
  plans: world.plans as ReadonlyMap<string, Plan>,
});

const currentOf = (world: World, assignee: string) => world.assignments.find((a) => a.assignee === assignee);

/** What the incremental path makes of the tree when only `assignee`'s allowances change. */
function incrementally(world: World, assignee: string, next: Assignment | undefined): TreeState | undefined {
  const diff = recomputeEntity({
    entity: assignee,
    allowances: next?.allowances ?? [],
    own: {
      limitPools: world.tree.limitPools.filter((p) => p.name.startsWith(`${assignee}/`)),
      limits: world.tree.limits.filter((l) => l.name.startsWith(`${assignee}/`)),
    },
    ancestors: world.tree.limitPools,
  });
  return diff && applyDiff(world.tree, diff);
}

function withAssignment(world: World, assignee: string, next: Assignment | undefined): World {
  const others = world.assignments.filter((a) => a.assignee !== assignee);
  return { ...world, assignments: next ? [...others, { ...next, assignee }] : others };
}

const unchanged = (world: World): StepResult => ({ world, checked: false, diff: undefined, previous: world.tree });

function settle(world: World, checked: boolean): StepResult {
  const { world: next, diff } = recompute(world);
  return { world: next, checked, diff, previous: world.tree };
}

export function submit(world: World, assignee: string, request: RequestType, requesterIsSystem: boolean): StepResult {
  try {
    const outcome = submitRequest(snapshotOf(world), {
      assignee,
      service: SERVICE,
      current: currentOf(world, assignee),
      request,
      requesterIsSystem,
    });
    if (outcome.decision.conclusion === 'PENDING')
      return unchanged({ ...world, pending: [...world.pending, { assignee, request }] });
    if (!outcome.capacity.ok) return unchanged(world);
    const incremental = incrementally(world, assignee, outcome.next);
    return { ...settle(withAssignment(world, assignee, outcome.next), true), incremental };
  } catch (error) {
    if (error instanceof ApiError) return unchanged(world);
    throw error;
  }
}

export function accept(world: World, which: number): StepResult {
  const item = world.pending[which % Math.max(1, world.pending.length)];
  if (!item) return unchanged(world);
  const rest = world.pending.filter((p) => p !== item);
  try {
    const effect = requestEffect(snapshotOf(world), {
      ...item,
      service: SERVICE,
      current: currentOf(world, item.assignee),
    });
    if (!effect.capacity.ok) return unchanged(world);
    const incremental = incrementally(world, item.assignee, effect.next);
    return { ...settle(withAssignment({ ...world, pending: rest }, item.assignee, effect.next), true), incremental };
  } catch (error) {
    if (error instanceof ApiError) return unchanged({ ...world, pending: rest });
    throw error;
  }
}

export function decline(world: World, which: number): StepResult {
  const item = world.pending[which % Math.max(1, world.pending.length)];
  return unchanged({ ...world, pending: world.pending.filter((p) => p !== item) });
}

export function deleteEntity(world: World, entity: string): StepResult {
  if (
    !world.hierarchy.projects.some((p) => p.name === entity) &&
    !world.hierarchy.organizations.some((o) => o.name === entity)
  ) {
    return unchanged(world);
  }
  try {
    const removed = removeEntity(world.hierarchy, world.assignments, entity);
    const pending = world.pending.filter((p) => p.assignee !== entity);
    return settle({ ...world, hierarchy: removed.hierarchy, assignments: removed.assignments, pending }, false);
  } catch (error) {
    if (error instanceof ApiError) return unchanged(world);
    throw error;
  }
}

export function addRegion(world: World, project: string, region: string): StepResult {
  const projects = world.hierarchy.projects.map((p) =>
    p.name === project && !p.regions.includes(region) ? { ...p, regions: [...p.regions, region] } : p,
  );
  return settle({ ...world, hierarchy: { ...world.hierarchy, projects } }, false);
}

export function changePlan(world: World, planName: string, resource: string, value: number): StepResult {
  const old = world.plans.get(planName);
  if (!old) return unchanged(world);
  const resourceLimits = [...old.resourceLimits.filter((l) => l.resource !== resource), { resource, value }];
  const plans = new Map(world.plans);
  plans.set(planName, { ...old, resourceLimits, generation: nextPlanGeneration(old, { resourceLimits }) });
  return settle({ ...world, plans }, false);
}

export function consume(world: World, limitName: string, count: number, give: boolean): StepResult {
  const limit = world.tree.limits.find((l) => l.name === limitName);
  if (!limit) return unchanged(world);
  let next = limit;
  if (give) next = release(limit, count);
  else {
    const result = tryConsume(limit, count);
    if (!result.ok) return unchanged(world);
    next = result.limit;
  }
  const limits = world.tree.limits.map((l) => (l === limit ? next : l));
  return settle({ ...world, tree: { ...world.tree, limits } }, false);
}

/** Applies a diff to a state the way the caller writes it. */
export function applyDiff(state: TreeState, diff: TreeDiff): TreeState {
  const pools = new Map(state.limitPools.map((p) => [p.name, p]));
  const limits = new Map(state.limits.map((l) => [l.name, l]));
  for (const name of diff.deletedPools) pools.delete(name);
  for (const pool of [...diff.createdPools, ...diff.updatedPools]) pools.set(pool.name, pool);
  for (const name of diff.deletedLimits) limits.delete(name);
  for (const limit of [...diff.createdLimits, ...diff.updatedLimits]) limits.set(limit.name, limit);
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { limitPools: [...pools.values()].sort(byName), limits: [...limits.values()].sort(byName) };
}

export { diffTree };
