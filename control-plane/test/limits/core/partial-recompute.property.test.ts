import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  entityKind,
  indexHierarchy,
  recomputeTree,
  reservation,
  type ExternalDraw,
  type Hierarchy,
  type RequestType,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { DEVICES, PODS, SERVICE, plan, spec } from './fixtures.js';
import {
  accept,
  addRegion,
  changePlan,
  consume,
  deleteEntity,
  startWorld,
  submit,
  type StepResult,
  type World,
} from './limits-simulator.js';

/**
 * The control plane recomputes only the part of the tree a write touches: the touched entities, their
 * ancestors and the service, with `external` standing for what the children left out reserve. That must give
 * exactly what a whole-tree recompute gives, inside the part and (unchanged) outside it.
 */
const REGIONS = ['r1', 'r2'] as const;
const ORGS = ['organizations/o1', 'organizations/o2', 'organizations/o3'] as const;
const PROJECTS = ['projects/p1', 'projects/p2', 'projects/p3', 'projects/p4', 'projects/p5'] as const;
const PLANS = [
  plan('service', 'SERVICE', { [DEVICES]: 1000, [PODS]: 300 }),
  plan('org', 'ORGANIZATION', { [DEVICES]: 200, [PODS]: 40 }),
  plan('project-small', 'PROJECT', { [DEVICES]: 5, [PODS]: 2 }),
  plan('project-large', 'PROJECT', { [DEVICES]: 50 }),
  plan('project-zero', 'PROJECT', { [DEVICES]: 0 }),
];
/** service → o1 → o3 → p1, p5; o1 → p2; o2 → p3; p4 directly under the service. */
const HIERARCHY: Hierarchy = {
  organizations: [{ name: ORGS[0] }, { name: ORGS[1] }, { name: ORGS[2], parentOrganization: ORGS[0] }],
  projects: [
    { name: PROJECTS[0], parentOrganization: ORGS[2], regions: ['r1'] },
    { name: PROJECTS[1], parentOrganization: ORGS[0], regions: ['r1', 'r2'] },
    { name: PROJECTS[2], parentOrganization: ORGS[1], regions: ['r2'] },
    { name: PROJECTS[3], regions: ['r1'] },
    { name: PROJECTS[4], parentOrganization: ORGS[2], regions: ['r2'] },
  ],
};

interface Move {
  label: string;
  run(world: World): StepResult;
  /** entities whose assignments or regions the move changes */
  touched: readonly string[];
  removed?: string;
}

const region = fc.constantFrom('', ...REGIONS);
const projectRequest: fc.Arbitrary<RequestType> = fc.oneof(
  fc.record({
    assign: fc.record({
      plan: fc.constantFrom(PLANS[2]!.name, PLANS[3]!.name, PLANS[4]!.name),
      extensions: fc.array(
        fc.record({ resource: fc.constantFrom(DEVICES, PODS), value: fc.integer({ min: -10, max: 30 }), region }),
        {
          maxLength: 2,
        },
      ),
      region,
    }),
  }),
  fc.record({ unassign: fc.record({ assignment: fc.constant('a'), region }) }),
);
const move: fc.Arbitrary<Move> = fc.oneof(
  fc.tuple(fc.constantFrom(...PROJECTS, ...ORGS), projectRequest, fc.boolean()).map(([entity, raw, system]) => {
    const request: RequestType =
      'unassign' in raw ? { unassign: { ...raw.unassign, assignment: `${entity}/planAssignments/devices` } } : raw;
    const fixed: RequestType =
      'assign' in request && entityKind(entity) === 'organization'
        ? { assign: { ...request.assign, plan: PLANS[1]!.name } }
        : request;
    return {
      label: `submit ${entity} ${JSON.stringify(fixed)}`,
      run: (w: World) => submit(w, entity, fixed, system),
      touched: [entity],
    };
  }),
  fc.nat().map((i) => ({ label: `accept ${i}`, run: (w: World) => accept(w, i), touched: [] as string[] })),
  fc
    .constantFrom(...PROJECTS, ORGS[1])
    .map((e) => ({ label: `delete ${e}`, run: (w: World) => deleteEntity(w, e), touched: [], removed: e })),
  fc
    .tuple(fc.constantFrom(...PROJECTS), fc.constantFrom(...REGIONS))
    .map(([p, r]) => ({ label: `region ${r} → ${p}`, run: (w: World) => addRegion(w, p, r), touched: [p] })),
  fc.tuple(fc.constantFrom(PLANS[2]!.name, PLANS[1]!.name), fc.integer({ min: 0, max: 120 })).map(([p, v]) => ({
    label: `plan ${p}=${v}`,
    run: (w: World) => changePlan(w, p, DEVICES, v),
    touched: [] as string[],
  })),
  fc
    .tuple(fc.constantFrom(...PROJECTS), fc.constantFrom(...REGIONS), fc.integer({ min: 1, max: 6 }), fc.boolean())
    .map(([p, r, n, give]) => ({
      label: `${give ? 'release' : 'consume'} ${n} ${p} ${r}`,
      run: (w: World) => consume(w, `${p}/limits/${r}/devices.outpost/devices`, n, give),
      touched: [p],
    })),
);

const ownerOf = (name: string): string => name.split('/').slice(0, 2).join('/');

/** What the control plane's scope loader builds, from a world: the part of `entities` (closed upwards). */
function partialRecompute(
  world: World,
  previousTree: TreeState,
  oldHierarchy: Hierarchy,
  touched: readonly string[],
  removed?: string,
) {
  const full = indexHierarchy(world.hierarchy);
  const old = indexHierarchy(oldHierarchy);
  const scope = new Set<string>([SERVICE]);
  const climb = (entity: string | undefined, index: typeof full): void => {
    for (let e = entity; e !== undefined; e = index.parentOrganizationOf(e)) scope.add(e);
  };
  for (const entity of touched) if (full.has(entity)) climb(entity, full);
  if (removed) climb(old.parentOrganizationOf(removed), old);
  const hierarchy: Hierarchy = {
    organizations: world.hierarchy.organizations
      .filter((o) => scope.has(o.name))
      .map((o) => ({ ...o, regions: full.regionsOf(o.name) })),
    projects: world.hierarchy.projects.filter((p) => scope.has(p.name)),
    services: [{ name: SERVICE, regions: full.regionsOf(SERVICE) }],
  };
  const owners = new Set([...scope, ...(removed ? [removed] : [])]);
  const previous: TreeState = {
    limitPools: previousTree.limitPools.filter((p) => owners.has(ownerOf(p.name))),
    limits: previousTree.limits.filter((l) => owners.has(ownerOf(l.name))),
  };
  const held = new Map<string, number>();
  for (const l of previous.limits)
    for (const s of l.sources) held.set(s, (held.get(s) ?? 0) + reservation(l.configuredLimit, l.activeLimit));
  for (const p of previous.limitPools)
    if (p.source) held.set(p.source, (held.get(p.source) ?? 0) + reservation(p.configuredSize, p.activeSize));
  const outside = [
    ...previousTree.limits.filter((l) => !owners.has(ownerOf(l.name))).flatMap((l) => l.sources),
    ...previousTree.limitPools.filter((p) => !owners.has(ownerOf(p.name))).map((p) => p.source),
  ];
  const external: ExternalDraw[] = previous.limitPools.map((pool) => {
    const reserved = Math.max(0, pool.reserved - (held.get(pool.name) ?? 0));
    return { pool, reserved, drawn: reserved > 0 || outside.includes(pool.name) };
  });
  const assignments = world.assignments.filter((a) => scope.has(a.assignee));
  return { owners, result: recomputeTree(hierarchy, assignments, world.plans, previous, external) };
}

describe('recomputeTree over a part of the tree', () => {
  it('agrees with the whole-tree recompute inside the part and leaves the rest as it was', () => {
    fc.assert(
      fc.property(fc.array(move, { minLength: 1, maxLength: 30 }), (moves) => {
        let world = startWorld(HIERARCHY, PLANS, [
          { assignee: SERVICE, ...spec(PLANS[0]!.name) },
          ...ORGS.map((org) => ({ assignee: org, ...spec(PLANS[1]!.name) })),
          ...PROJECTS.map((project) => ({ assignee: project, ...spec(PLANS[2]!.name) })),
        ]);
        for (const m of moves) {
          const before = world;
          const result = m.run(world);
          world = result.world;
          if (!result.diff) continue;
          // requests and plan edits name their assignee through the world: find who changed
          const changed = new Set(m.touched);
          for (const a of world.assignments) {
            const old = before.assignments.find((b) => b.assignee === a.assignee);
            if (JSON.stringify(old) !== JSON.stringify(a)) changed.add(a.assignee);
          }
          for (const b of before.assignments)
            if (!world.assignments.some((a) => a.assignee === b.assignee)) changed.add(b.assignee);
          const { owners, result: partial } = partialRecompute(
            world,
            result.previous,
            before.hierarchy,
            [...changed],
            m.removed,
          );
          const inside = {
            limitPools: world.tree.limitPools.filter((p) => owners.has(ownerOf(p.name))),
            limits: world.tree.limits.filter((l) => owners.has(ownerOf(l.name))),
          };
          expect({ step: m.label, state: partial.state }).toEqual({ step: m.label, state: inside });
          const outsideBefore = {
            limitPools: result.previous.limitPools.filter((p) => !owners.has(ownerOf(p.name))),
            limits: result.previous.limits.filter((l) => !owners.has(ownerOf(l.name))),
          };
          const outsideAfter = {
            limitPools: world.tree.limitPools.filter((p) => !owners.has(ownerOf(p.name))),
            limits: world.tree.limits.filter((l) => !owners.has(ownerOf(l.name))),
          };
          expect({ step: m.label, outside: outsideAfter }).toEqual({ step: m.label, outside: outsideBefore });
        }
      }),
      { numRuns: 200 },
    );
  });
});
