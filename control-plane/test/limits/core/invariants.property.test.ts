import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeAllowances,
  indexHierarchy,
  isEmptyDiff,
  recomputeTree,
  type Allowance,
  type Hierarchy,
  type Limit,
  type LimitPool,
  type RequestType,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { DEVICES, PODS, SERVICE, plan, spec } from './fixtures.js';
import {
  accept,
  addRegion,
  applyDiff,
  changePlan,
  consume,
  decline,
  deleteEntity,
  startWorld,
  submit,
  type StepResult,
  type World,
} from './limits-simulator.js';

const REGIONS = ['r1', 'r2'] as const;
const RESOURCES = [DEVICES, PODS] as const;
const ORGS = ['organizations/o1', 'organizations/o2', 'organizations/o3'] as const;
const PROJECTS = ['projects/p1', 'projects/p2', 'projects/p3', 'projects/p4'] as const;
const ENTITIES = [SERVICE, ...ORGS, ...PROJECTS] as const;

const PLANS = [
  plan('service', 'SERVICE', { [DEVICES]: 1000, [PODS]: 300 }),
  plan('org-small', 'ORGANIZATION', { [DEVICES]: 60, [PODS]: 20 }),
  plan('org-large', 'ORGANIZATION', { [DEVICES]: 400, [PODS]: 100 }),
  plan('project-small', 'PROJECT', { [DEVICES]: 5, [PODS]: 2 }),
  plan('project-large', 'PROJECT', { [DEVICES]: 50 }),
];
const PLANS_OF: Record<string, string[]> = {
  services: [PLANS[0]!.name],
  organizations: [PLANS[1]!.name, PLANS[2]!.name],
  projects: [PLANS[3]!.name, PLANS[4]!.name],
};

/** service → o1 → o3 → p1; o1 → p2; o2 → p3; p4 directly under the service. */
const HIERARCHY: Hierarchy = {
  organizations: [{ name: ORGS[0] }, { name: ORGS[1] }, { name: ORGS[2], parentOrganization: ORGS[0] }],
  projects: [
    { name: PROJECTS[0], parentOrganization: ORGS[2], regions: ['r1'] },
    { name: PROJECTS[1], parentOrganization: ORGS[0], regions: ['r1', 'r2'] },
    { name: PROJECTS[2], parentOrganization: ORGS[1], regions: ['r2'] },
    { name: PROJECTS[3], regions: ['r1'] },
  ],
};

const region = fc.constantFrom('', ...REGIONS);
const extension = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  value: fc.integer({ min: -30, max: 60 }),
  region,
});
const requestFor = (entity: string): fc.Arbitrary<RequestType> => {
  const kind = entity.split('/')[0] ?? '';
  const assignment = `${entity}/planAssignments/devices`;
  return fc.oneof(
    fc.record({
      assign: fc.record({
        plan: fc.constantFrom(...(PLANS_OF[kind] ?? [])),
        extensions: fc.array(extension, { maxLength: 2 }),
        region,
      }),
    }),
    fc.record({
      extend: fc.record({
        assignment: fc.constant(assignment),
        additions: fc.array(extension, { minLength: 1, maxLength: 2 }),
      }),
    }),
    fc.record({ unassign: fc.record({ assignment: fc.constant(assignment), region }) }),
  );
};

type Step = (world: World) => StepResult;
const step: fc.Arbitrary<{ label: string; run: Step }> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom(...ENTITIES), fc.boolean()).chain(([entity, system]) =>
      requestFor(entity).map((request) => ({
        label: `submit ${entity} ${JSON.stringify(request)} system=${system}`,
        run: (w: World) => submit(w, entity, request, system && entity === SERVICE),
      })),
    ),
  },
  { weight: 3, arbitrary: fc.nat().map((i) => ({ label: `accept ${i}`, run: (w: World) => accept(w, i) })) },
  { weight: 1, arbitrary: fc.nat().map((i) => ({ label: `decline ${i}`, run: (w: World) => decline(w, i) })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...ORGS, ...PROJECTS)
      .map((e) => ({ label: `delete ${e}`, run: (w: World) => deleteEntity(w, e) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...PROJECTS), fc.constantFrom(...REGIONS))
      .map(([p, r]) => ({ label: `add region ${r} to ${p}`, run: (w: World) => addRegion(w, p, r) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...PLANS.map((p) => p.name)),
        fc.constantFrom(...RESOURCES),
        fc.integer({ min: 0, max: 120 }),
      )
      .map(([p, r, v]) => ({ label: `plan ${p} ${r}=${v}`, run: (w: World) => changePlan(w, p, r, v) })),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...PROJECTS), fc.constantFrom(...REGIONS), fc.integer({ min: 1, max: 6 }), fc.boolean())
      .map(([p, r, n, give]) => ({
        label: `${give ? 'release' : 'consume'} ${n} ${p} ${r}`,
        run: (w: World) => consume(w, `${p}/limits/${r}/devices.outpost/devices`, n, give),
      })),
  },
);

const initial = (): World =>
  startWorld(HIERARCHY, PLANS, [
    { assignee: SERVICE, ...spec(PLANS[0]!.name) },
    { assignee: ORGS[0], ...spec(PLANS[2]!.name) },
    { assignee: ORGS[1], ...spec(PLANS[1]!.name) },
    { assignee: ORGS[2], ...spec(PLANS[1]!.name) },
    ...PROJECTS.map((project) => ({ assignee: project, ...spec(PLANS[3]!.name) })),
  ]);

/** Each check returns what it found wrong (plain comparisons: thousands of steps run per test). */
function treeProblems(world: World, before: TreeState): string[] {
  const problems: string[] = [];
  const expectSame = (what: string, actual: unknown, expected: unknown): void => {
    if (actual !== expected) problems.push(`${what}: ${String(actual)} instead of ${String(expected)}`);
  };
  const { limitPools, limits } = world.tree;
  const pools = new Map(limitPools.map((p) => [p.name, p]));
  const index = indexHierarchy(world.hierarchy);
  const reserved = new Map<string, number>();
  const reserve = (source: string, amount: number): void => {
    if (!pools.has(source)) problems.push(`source ${source} does not exist`);
    reserved.set(source, (reserved.get(source) ?? 0) + amount);
  };
  const parentPool = (owner: string, child: { name: string; region: string }): string =>
    `${index.parentOrganizationOf(owner) ?? SERVICE}/limitPools/${child.region}/devices.outpost/${child.name.split('/').pop()}`;
  const previousLimits = new Map(before.limits.map((l) => [l.name, l]));

  for (const limit of limits) {
    const owner = limit.name.split('/limits/')[0] ?? '';
    expectSame(`sources of ${limit.name}`, limit.sources.join(), parentPool(owner, limit));
    reserve(limit.sources[0] ?? '', Math.max(limit.configuredLimit, limit.activeLimit));
    problems.push(...activeLimitProblems(limit, previousLimits.get(limit.name)));
  }
  for (const pool of limitPools) {
    const owner = pool.name.split('/limitPools/')[0] ?? '';
    if (owner === SERVICE) expectSame(`source of ${pool.name}`, pool.source, '');
    else {
      expectSame(`source of ${pool.name}`, pool.source, parentPool(owner, pool));
      reserve(pool.source, Math.max(pool.configuredSize, pool.activeSize));
    }
  }
  for (const pool of limitPools) {
    expectSame(`reserved of ${pool.name}`, pool.reserved, reserved.get(pool.name) ?? 0);
    expectSame(`activeSize of ${pool.name}`, pool.activeSize, Math.max(pool.configuredSize, pool.reserved));
  }
  return problems;
}

function activeLimitProblems(limit: Limit, previous: Limit | undefined): string[] {
  const expected =
    limit.configuredLimit >= limit.usage
      ? limit.configuredLimit
      : Math.max(previous?.activeLimit ?? limit.configuredLimit, limit.configuredLimit);
  const problems: string[] = [];
  if (limit.usage > limit.activeLimit)
    problems.push(`${limit.name}: usage ${limit.usage} above active ${limit.activeLimit}`);
  if (limit.activeLimit !== expected)
    problems.push(`${limit.name}: active ${limit.activeLimit} instead of ${expected}`);
  return problems;
}

/** After a request-driven change, no pool was pushed past its configured size by a child that grew. */
function raiseProblems(before: TreeState, after: TreeState): string[] {
  const old = new Map<string, LimitPool>(before.limitPools.map((p) => [p.name, p]));
  return after.limitPools
    .filter((pool) => pool.reserved > (old.get(pool.name)?.reserved ?? 0) && pool.reserved > pool.configuredSize)
    .map((pool) => `${pool.name} grew to reserved ${pool.reserved} past its configured size ${pool.configuredSize}`);
}

function allowanceProblems(world: World): string[] {
  const problems: string[] = [];
  const index = indexHierarchy(world.hierarchy);
  const configured = new Map<string, number>();
  for (const assignment of world.assignments) {
    const expected: Allowance[] = computeAllowances(assignment, world.plans, index.regionsOf(assignment.assignee));
    if (JSON.stringify(assignment.allowances) !== JSON.stringify(expected)) {
      problems.push(`stale allowances of ${assignment.assignee}`);
    }
    for (const a of expected) {
      const collection = assignment.assignee.startsWith('projects/') ? 'limits' : 'limitPools';
      configured.set(
        `${assignment.assignee}/${collection}/${a.region}/devices.outpost/${a.resource.split('/').pop()}`,
        a.value,
      );
    }
  }
  for (const limit of world.tree.limits) {
    if (limit.configuredLimit !== (configured.get(limit.name) ?? 0)) problems.push(`configured of ${limit.name}`);
  }
  for (const pool of world.tree.limitPools) {
    if (pool.configuredSize !== (configured.get(pool.name) ?? 0)) problems.push(`configured of ${pool.name}`);
  }
  return problems;
}

describe('limits tree invariants under random request sequences', () => {
  it('holds reserved, active and capacity rules after every step', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40, size: 'max' }), (steps) => {
        let world = initial();
        expect(treeProblems(world, world.tree)).toEqual([]);
        for (const { label, run } of steps) {
          const before = world.tree;
          const result = run(world);
          world = result.world;
          const problems = [...treeProblems(world, result.previous), ...allowanceProblems(world)];
          if (result.checked) problems.push(...raiseProblems(before, world.tree));
          if (result.diff && JSON.stringify(applyDiff(result.previous, result.diff)) !== JSON.stringify(world.tree)) {
            problems.push('the diff does not lead to the new state');
          }
          if (result.incremental && JSON.stringify(result.incremental) !== JSON.stringify(world.tree)) {
            problems.push('recomputeEntity disagrees with recomputeTree');
          }
          const again = recomputeTree(world.hierarchy, world.assignments, world.plans, world.tree);
          if (!isEmptyDiff(again.diff)) problems.push('a second recompute changes the tree');
          if (problems.length > 0) expect({ step: label, problems }).toEqual({ step: label, problems: [] });
        }
      }),
      { numRuns: 150 },
    );
  });

  it('reaches the interesting states: pending requests, over-reserved pools and held active limits', () => {
    const seen = { pending: false, overReserved: false, held: false, approvedRaise: false, incremental: false };
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 40, size: 'max' }), (steps) => {
        let world = initial();
        for (const { run } of steps) {
          const result = run(world);
          if (result.incremental) seen.incremental = true;
          const grew = (p: LimitPool) =>
            p.reserved > (world.tree.limitPools.find((o) => o.name === p.name)?.reserved ?? 0);
          if (result.checked && result.world.tree.limitPools.some(grew)) seen.approvedRaise = true;
          world = result.world;
          if (world.pending.length > 0) seen.pending = true;
          if (world.tree.limitPools.some((p) => p.reserved > p.configuredSize)) seen.overReserved = true;
          if (world.tree.limits.some((l) => l.activeLimit > l.configuredLimit)) seen.held = true;
        }
      }),
      // A fixed seed: this checks the generator's reach, which must not depend on the run's luck.
      { numRuns: 300, seed: 20261128 },
    );
    expect(seen).toEqual({ pending: true, overReserved: true, held: true, approvedRaise: true, incremental: true });
  });
});
