import type { Organization, PlanAssignmentResource, Project } from '@outpost/shared';
import type { Doc, QueriedRow } from '../resources/resource-table.js';
import { countBy, countContaining, everyDoc, rowsUnder, type HeldKinds, type LimitsContext } from './context.js';
import {
  entityKind,
  indexHierarchy,
  lookupTree,
  reservation,
  type AssigneeAssignment,
  type ExternalDraw,
  type Hierarchy,
  type HierarchyIndex,
  type LimitPool,
  type LimitsSnapshot,
  type Plan,
  type TreeState,
} from './core/index.js';
import { assignmentKey, assignmentRowOf, type AssignmentRef } from './assignment-row.js';
import type { HeldRows } from './held-rows.js';
import { HierarchyReader } from './hierarchy-reader.js';
import { limitOf, organizationNodeOf, poolOf, projectNodeOf, regionsOf } from './records.js';
import type { ScopeReads, ScopeRowKind } from './scope-reads.js';

/**
 * The part of the tree a change touches, read from the store: some entities with every ancestor (closed
 * upwards) and every service, their assignments, pools and limits, the plans those use, and what children
 * outside the part reserve of its pools. recomputeTree over it gives exactly what a whole-tree recompute
 * would give for these entities, at the cost of the part only.
 */
export interface Scope {
  hierarchy: Hierarchy;
  /** indexHierarchy(hierarchy), made once when first asked for */
  index(): HierarchyIndex;
  assignments: AssigneeAssignment[];
  /** `${assignee} ${service}` → documents */
  refs: Map<string, AssignmentRef>;
  /** the assignee's PlanAssignment for the service, as the scope read it */
  planAssignmentOf(assignee: string, service: string): PlanAssignmentResource | undefined;
  plans: Map<string, Plan>;
  previous: TreeState;
  external: ExternalDraw[];
  /** the rows behind `previous` and the PlanAssignments, to write over without reading them again (none for the world) */
  held: HeldScopeRows;
}

export type HeldScopeRows = { [K in ScopeRowKind]: HeldRows<HeldKinds[K]> };

export interface ScopeOptions {
  /** organizations and projects just deleted: their pools and limits go, their parents are in scope */
  removed?: readonly (Organization | Project)[];
  /** plans to read besides those the assignments use (a request's plan) */
  plans?: readonly string[];
  /** the operation's reader, when nothing was written since it read */
  reader?: HierarchyReader;
  /** the reads of the scope made ahead, with the reader (see ScopeReads) */
  reads?: ScopeReads;
}

/** The scope of `targets` (existing services, organizations or projects) and everything above them. */
export function loadScope(ctx: LimitsContext, targets: readonly string[], options: ScopeOptions = {}): Scope {
  const h = ctx.h;
  const reader = options.reader ?? new HierarchyReader(ctx);
  const entities = new Set<string>();
  const include = (entity: string | undefined): void => {
    if (entity === undefined || entities.has(entity) || !reader.entity(entity)) return;
    entities.add(entity);
    for (const ancestor of reader.ancestors(entity)) entities.add(ancestor);
  };
  for (const target of targets) include(target);
  for (const removed of options.removed ?? []) include(removed.parentOrganization || undefined);
  const services = servicesOf(ctx);
  for (const service of services) entities.add(service.name);

  const allRegions = reader.allRegions();
  const organizations: Hierarchy['organizations'][number][] = [];
  const projects: Hierarchy['projects'][number][] = [];
  for (const entity of entities) {
    const kind = entityKind(entity);
    // an ancestor named by a parentOrganization that is not stored: a node without a name, as the core expects
    const doc = () => reader.entity(entity) ?? { name: '' };
    if (kind === 'project') projects.push(projectNodeOf(doc()));
    if (kind === 'organization') organizations.push(organizationNodeOf(doc(), reader.subtreeRegions(entity)));
  }
  const serviceNodes = services.map((service) => ({
    name: service.name,
    regions: [...new Set([...service.regions, ...allRegions])].sort(),
  }));

  const owners = [...entities, ...(options.removed ?? []).map((doc) => doc.name)];
  // what was read ahead is this scope's when it was read under these very entities (and nothing was removed)
  const reads = options.reads && !options.removed?.length && options.reads.covers(entities) ? options.reads : undefined;
  const held = reads?.held ?? holdRows(ctx);
  const under = <K extends ScopeRowKind>(kind: K, parents: string[]): QueriedRow<HeldKinds[K]>[] => {
    const handles: { [Kind in ScopeRowKind]: LimitsContext['h'][Kind] } = h;
    return reads ? reads.rowsOf(kind) : rowsUnder(handles[kind], parents);
  };
  const { assignments, refs, docs } = assignmentsOfDocs(
    hold(held.planAssignments, under('planAssignments', [...entities])),
  );
  const previous: TreeState = {
    limitPools: hold(
      held.pools,
      under(
        'pools',
        owners.filter((o) => entityKind(o) !== 'project'),
      ),
    ).map(poolOf),
    limits: hold(
      held.limits,
      under(
        'limits',
        owners.filter((o) => entityKind(o) === 'project'),
      ),
    ).map(limitOf),
  };
  const hierarchy: Hierarchy = { organizations, projects, services: serviceNodes };
  return {
    hierarchy,
    index: indexOnce(hierarchy),
    assignments,
    refs,
    planAssignmentOf: (assignee, service) => docs.get(assignmentKey(assignee, service)),
    plans: readPlans(reader, assignments, options.plans ?? []),
    previous,
    external: externalDraws(ctx, previous),
    held,
  };
}

/** Every service with its own regions (kept until services are written). */
function servicesOf(ctx: LimitsContext): { name: string; regions: string[] }[] {
  const services = ctx.h.services;
  return ctx.derived('services', [services], () =>
    everyDoc(services).map((doc) => ({ name: doc.name, regions: regionsOf(doc) })),
  );
}

export const serviceNames = (ctx: LimitsContext): string[] => servicesOf(ctx).map((service) => service.name);

/**
 * The whole tree: every entity, assignment, plan, pool and limit, from the world model (no documents read).
 * The writes take the rows they change from the world model too.
 */
export function loadWorld(ctx: LimitsContext): Scope {
  const world = ctx.world;
  world.build();
  const assignments: AssigneeAssignment[] = [];
  const refs = new Map<string, AssignmentRef>();
  for (const row of world.assignments.values()) {
    assignments.push(row.assignment);
    refs.set(row.key, row.ref);
  }
  const hierarchy: Hierarchy = {
    organizations: world.organizations.values(),
    projects: world.projects.values(),
    services: world.services.values(),
  };
  return {
    hierarchy,
    index: indexOnce(hierarchy),
    assignments,
    refs,
    planAssignmentOf: (assignee, service) => {
      const ref = refs.get(assignmentKey(assignee, service));
      return ref && ctx.storedRow('planAssignments', ref.planAssignment)?.doc;
    },
    plans: new Map(world.plans.values().map((plan) => [plan.name, plan] as const)),
    previous: { limitPools: world.pools.values(), limits: world.limits.values() },
    external: [],
    held: holdRows(ctx),
  };
}

/** Made before the rows are read (see HeldRows). */
export const holdRows = (ctx: LimitsContext): HeldScopeRows => ({
  pools: ctx.heldRows('pools'),
  limits: ctx.heldRows('limits'),
  planAssignments: ctx.heldRows('planAssignments'),
});

/** Holds the rows and gives their documents. */
function hold<T extends Doc & { name: string }>(held: HeldRows<T>, rows: readonly QueriedRow<T>[]): T[] {
  return rows.map((row) => {
    held.hold(row.doc.name, row);
    return row.doc;
  });
}

function indexOnce(hierarchy: Hierarchy): () => HierarchyIndex {
  let index: HierarchyIndex | undefined;
  return () => (index ??= indexHierarchy(hierarchy));
}

/** What the request rules of the core read. */
export const snapshotOf = (scope: Scope): LimitsSnapshot => ({
  index: scope.index(),
  tree: lookupTree(scope.previous),
  plans: scope.plans,
});

function assignmentsOfDocs(docs: readonly PlanAssignmentResource[]): {
  assignments: AssigneeAssignment[];
  refs: Map<string, AssignmentRef>;
  docs: Map<string, PlanAssignmentResource>;
} {
  const assignments: AssigneeAssignment[] = [];
  const refs = new Map<string, AssignmentRef>();
  const byKey = new Map<string, PlanAssignmentResource>();
  for (const doc of docs) addAssignment(doc, assignments, refs, byKey);
  return { assignments, refs, docs: byKey };
}

function addAssignment(
  doc: PlanAssignmentResource,
  assignments: AssigneeAssignment[],
  refs: Map<string, AssignmentRef>,
  byKey?: Map<string, PlanAssignmentResource>,
): void {
  const { assignment, key, ref } = assignmentRowOf(doc);
  assignments.push(assignment);
  refs.set(key, ref);
  if (byKey && !byKey.has(key)) byKey.set(key, doc);
}

function readPlans(reader: HierarchyReader, assignments: readonly AssigneeAssignment[], more: readonly string[]) {
  const names = new Set(more);
  for (const a of assignments) {
    if (a.defaultRegionalPlan) names.add(a.defaultRegionalPlan);
    for (const override of a.regionalPlanOverrides) names.add(override.plan);
  }
  const plans = new Map<string, Plan>();
  for (const name of names) {
    const plan = reader.plan(name);
    if (plan) plans.set(name, plan);
  }
  return plans;
}

/**
 * For each pool in scope: what children outside the scope reserve there (its stored `reserved` minus what the
 * scope's own children held), and whether any of them draws from it at all (asked only when they reserve 0).
 */
function externalDraws(ctx: LimitsContext, previous: TreeState): ExternalDraw[] {
  const held = new Map<string, number>();
  const poolChildren = new Map<string, number>();
  const limitChildren = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, value: number): void => {
    map.set(key, (map.get(key) ?? 0) + value);
  };
  for (const limit of previous.limits) {
    for (const source of limit.sources) {
      add(held, source, reservation(limit.configuredLimit, limit.activeLimit));
      add(limitChildren, source, 1);
    }
  }
  for (const pool of previous.limitPools) {
    if (pool.source === '') continue;
    add(held, pool.source, reservation(pool.configuredSize, pool.activeSize));
    add(poolChildren, pool.source, 1);
  }
  return previous.limitPools.map((pool: LimitPool) => {
    const reserved = Math.max(0, pool.reserved - (held.get(pool.name) ?? 0));
    const drawn =
      reserved > 0 ||
      countBy(ctx.h.pools, 'source', pool.name) > (poolChildren.get(pool.name) ?? 0) ||
      countContaining(ctx.h.limits, 'sources', pool.name) > (limitChildren.get(pool.name) ?? 0);
    return { pool: { name: pool.name, resource: pool.resource, region: pool.region }, reserved, drawn };
  });
}
