import { describe, expect, it } from 'vitest';
import {
  isEmptyDiff,
  recomputeTree,
  removeEntity,
  type Limit,
  type LimitPool,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { DEVICES, SERVICE, allowance, spec } from './fixtures.js';
import { assignments, hierarchy, limitOf, poolOf, plans, projectPlan } from './tree-fixture.js';

const EMPTY: TreeState = { limitPools: [], limits: [] };

function find<T extends { name: string }>(list: readonly T[], name: string): T {
  const found = list.find((item) => item.name === name);
  if (!found) throw new Error(`${name} missing`);
  return found;
}

const withLimit = (state: TreeState, name: string, change: Partial<Limit>): TreeState => ({
  ...state,
  limits: state.limits.map((limit) => (limit.name === name ? { ...limit, ...change } : limit)),
});

describe('recomputeTree', () => {
  const first = recomputeTree(hierarchy, assignments, plans, EMPTY);
  const pools = first.state.limitPools;
  const limits = first.state.limits;

  it('creates a limit per project region from its allowances, sourced from the parent pool of that region', () => {
    expect(find(limits, limitOf('projects/factory', 'eu-west'))).toEqual({
      name: limitOf('projects/factory', 'eu-west'),
      service: SERVICE,
      resource: DEVICES,
      region: 'eu-west',
      configuredLimit: 10,
      activeLimit: 10,
      usage: 0,
      sources: [poolOf('organizations/acme-eu', 'eu-west')],
    });
    expect(limits.map((limit) => limit.name)).toEqual([
      limitOf('projects/factory', 'eu-west'),
      limitOf('projects/factory', 'us-east'),
      limitOf('projects/solo', 'us-east'),
    ]);
  });

  it('sources a project without organization from the service', () => {
    expect(find(limits, limitOf('projects/solo', 'us-east')).sources).toEqual([poolOf(SERVICE, 'us-east')]);
  });

  it('gives organizations pools in the regions of their descendants, sourced from their parent', () => {
    expect(find(pools, poolOf('organizations/acme', 'eu-west'))).toEqual({
      name: poolOf('organizations/acme', 'eu-west'),
      service: SERVICE,
      resource: DEVICES,
      region: 'eu-west',
      configuredSize: 100,
      activeSize: 100,
      reserved: 50,
      source: poolOf(SERVICE, 'eu-west'),
    });
    expect(find(pools, poolOf('organizations/acme-eu', 'us-east')).reserved).toBe(10);
  });

  it('roots the service pools (no source) and sums reserved over all children', () => {
    const servicePool = find(pools, poolOf(SERVICE, 'us-east'));
    expect(servicePool.source).toBe('');
    expect(servicePool.configuredSize).toBe(1000);
    expect(servicePool.reserved).toBe(100 + 10);
    expect(find(pools, poolOf(SERVICE, 'eu-west')).reserved).toBe(100);
  });

  it('reports everything as created the first time, and nothing when recomputed on its own output', () => {
    expect(first.diff.createdPools).toHaveLength(6);
    expect(first.diff.createdLimits).toHaveLength(3);
    const again = recomputeTree(hierarchy, [...first.changedAssignments], plans, first.state);
    expect(isEmptyDiff(again.diff)).toBe(true);
    expect(again.changedAssignments).toEqual([]);
  });

  it('returns the computed fields of every assignment that changed', () => {
    const factory = first.changedAssignments.find((a) => a.assignee === 'projects/factory');
    expect(factory?.appliedRegions).toEqual(['eu-west', 'us-east']);
    expect(factory?.appliedPlanSpecGeneration).toBe(1);
    expect(factory?.allowances).toEqual([allowance(DEVICES, 10, 'eu-west'), allowance(DEVICES, 10, 'us-east')]);
  });

  it('after a service-level plan change updates only the service pools', () => {
    const bigger = new Map(plans);
    bigger.set(SERVICE + '/plans/service', {
      ...plans.get(SERVICE + '/plans/service')!,
      resourceLimits: [{ resource: DEVICES, value: 2000 }],
      generation: 2,
    });
    const next = recomputeTree(hierarchy, first.changedAssignments, bigger, first.state);
    expect(next.diff.updatedPools.map((pool) => pool.name)).toEqual([
      poolOf(SERVICE, 'eu-west'),
      poolOf(SERVICE, 'us-east'),
    ]);
    expect(next.diff.updatedPools.every((pool) => pool.configuredSize === 2000)).toBe(true);
    expect(next.diff.createdPools.length + next.diff.updatedLimits.length + next.diff.deletedPools.length).toBe(0);
    expect(next.changedAssignments.map((a) => [a.assignee, a.appliedPlanSpecGeneration])).toEqual([[SERVICE, 2]]);
  });

  it('follows a raised configured limit at once (active = configured)', () => {
    const raised = assignments.map((a) =>
      a.assignee === 'projects/solo' ? { ...a, extensions: [allowance(DEVICES, 15)] } : a,
    );
    const next = recomputeTree(hierarchy, raised, plans, first.state);
    expect(find(next.state.limits, limitOf('projects/solo', 'us-east'))).toMatchObject({
      configuredLimit: 25,
      activeLimit: 25,
    });
    expect(find(next.state.limitPools, poolOf(SERVICE, 'us-east')).reserved).toBe(125);
  });

  describe('conflict: the configured limit falls below the usage', () => {
    const busy = withLimit(first.state, limitOf('projects/solo', 'us-east'), { usage: 8 });
    const lowered = assignments.map((a) =>
      a.assignee === 'projects/solo' ? { ...a, extensions: [allowance(DEVICES, -5)] } : a,
    );
    const conflict = recomputeTree(hierarchy, lowered, plans, busy);

    it('keeps the previous active limit, and the parent keeps reserving it', () => {
      expect(find(conflict.state.limits, limitOf('projects/solo', 'us-east'))).toMatchObject({
        configuredLimit: 5,
        activeLimit: 10,
        usage: 8,
      });
      expect(find(conflict.state.limitPools, poolOf(SERVICE, 'us-east')).reserved).toBe(110);
    });

    it('settles on the configured limit once usage fits again, returning the reservation', () => {
      const released = withLimit(conflict.state, limitOf('projects/solo', 'us-east'), { usage: 5 });
      const settled = recomputeTree(hierarchy, lowered, plans, released);
      expect(find(settled.state.limits, limitOf('projects/solo', 'us-east'))).toMatchObject({
        configuredLimit: 5,
        activeLimit: 5,
      });
      expect(find(settled.state.limitPools, poolOf(SERVICE, 'us-east')).reserved).toBe(105);
    });

    it('keeps a limit whose allowance is gone while it has usage, with configured 0', () => {
      const unassigned = assignments.filter((a) => a.assignee !== 'projects/solo');
      const next = recomputeTree(hierarchy, unassigned, plans, busy);
      expect(find(next.state.limits, limitOf('projects/solo', 'us-east'))).toMatchObject({
        configuredLimit: 0,
        activeLimit: 10,
        usage: 8,
      });
      const idle = recomputeTree(
        hierarchy,
        unassigned,
        plans,
        withLimit(busy, limitOf('projects/solo', 'us-east'), { usage: 0 }),
      );
      expect(idle.diff.deletedLimits).toEqual([limitOf('projects/solo', 'us-east')]);
    });
  });

  it('holds a pool lowered below its reserved amount at active = reserved, and its parent reserves that', () => {
    const changed = assignments.map((a) => {
      if (a.assignee === 'organizations/acme-eu') return { ...a, extensions: [allowance(DEVICES, -45)] };
      if (a.assignee === 'projects/factory') return { ...a, extensions: [allowance(DEVICES, 10, 'us-east')] };
      return a;
    });
    const next = recomputeTree(hierarchy, changed, plans, first.state);
    const pool: LimitPool = find(next.state.limitPools, poolOf('organizations/acme-eu', 'us-east'));
    expect(pool).toMatchObject({ configuredSize: 5, reserved: 20, activeSize: 20 });
    expect(find(next.state.limitPools, poolOf('organizations/acme', 'us-east')).reserved).toBe(20);
    expect(find(next.state.limitPools, poolOf('organizations/acme-eu', 'eu-west'))).toMatchObject({
      configuredSize: 5,
      reserved: 10,
      activeSize: 10,
    });
  });

  it('creates a pool a child draws from even when its owner has no allowance (configured 0, over-reserved)', () => {
    const next = recomputeTree(
      hierarchy,
      assignments.filter((a) => a.assignee !== 'organizations/acme-eu'),
      plans,
      first.state,
    );
    expect(find(next.state.limitPools, poolOf('organizations/acme-eu', 'us-east'))).toMatchObject({
      configuredSize: 0,
      reserved: 10,
      activeSize: 10,
    });
  });

  it('extends the plans into a region that appears in a project: appliedRegions grows up the tree', () => {
    const grown = {
      ...hierarchy,
      projects: hierarchy.projects.map((p) =>
        p.name === 'projects/factory' ? { ...p, regions: [...p.regions, 'ap-south'] } : p,
      ),
    };
    const next = recomputeTree(grown, first.changedAssignments, plans, first.state);
    expect(next.diff.createdLimits.map((limit) => limit.name)).toEqual([limitOf('projects/factory', 'ap-south')]);
    expect(next.diff.createdPools.map((pool) => pool.name).sort()).toEqual(
      [
        poolOf('organizations/acme', 'ap-south'),
        poolOf('organizations/acme-eu', 'ap-south'),
        poolOf(SERVICE, 'ap-south'),
      ].sort(),
    );
    const applied = Object.fromEntries(next.changedAssignments.map((a) => [a.assignee, a.appliedRegions]));
    expect(applied).toEqual({
      [SERVICE]: ['ap-south', 'eu-west', 'us-east'],
      'organizations/acme': ['ap-south', 'eu-west', 'us-east'],
      'organizations/acme-eu': ['ap-south', 'eu-west', 'us-east'],
      'projects/factory': ['ap-south', 'eu-west', 'us-east'],
    });
  });

  it('gives an organization pools in its own listed regions before any project is there', () => {
    const listed = {
      ...hierarchy,
      organizations: hierarchy.organizations.map((o) =>
        o.name === 'organizations/acme' ? { ...o, regions: ['sa-east'] } : o,
      ),
    };
    const next = recomputeTree(listed, assignments, plans, EMPTY);
    expect(find(next.state.limitPools, poolOf('organizations/acme', 'sa-east'))).toMatchObject({
      configuredSize: 100,
      reserved: 0,
    });
    expect(find(next.state.limitPools, poolOf(SERVICE, 'sa-east')).reserved).toBe(100);
  });

  it('returns a deleted project’s limits: its limits go, the parents’ reserved falls', () => {
    const listed = {
      ...hierarchy,
      organizations: hierarchy.organizations.map((o) => ({ ...o, regions: ['eu-west', 'us-east'] })),
    };
    const before = recomputeTree(listed, assignments, plans, EMPTY).state;
    const removed = removeEntity(listed, assignments, 'projects/factory');
    expect(removed.removedAssignments.map((a) => a.assignee)).toEqual(['projects/factory']);
    const busy = withLimit(before, limitOf('projects/factory', 'us-east'), { usage: 3 });
    const next = recomputeTree(removed.hierarchy, removed.assignments, plans, busy);
    expect(next.diff.deletedLimits).toEqual([
      limitOf('projects/factory', 'eu-west'),
      limitOf('projects/factory', 'us-east'),
    ]);
    expect(find(next.state.limitPools, poolOf('organizations/acme-eu', 'us-east')).reserved).toBe(0);
    expect(next.diff.updatedPools.map((pool) => pool.name)).toEqual([
      poolOf('organizations/acme-eu', 'eu-west'),
      poolOf('organizations/acme-eu', 'us-east'),
    ]);
  });

  it('shrinks an organization to the regions it still has: its pools there go with the last project', () => {
    const removed = removeEntity(hierarchy, assignments, 'projects/factory');
    const next = recomputeTree(removed.hierarchy, removed.assignments, plans, first.state);
    expect(next.diff.deletedPools).toEqual([
      poolOf('organizations/acme-eu', 'eu-west'),
      poolOf('organizations/acme-eu', 'us-east'),
      poolOf('organizations/acme', 'eu-west'),
      poolOf('organizations/acme', 'us-east'),
      poolOf(SERVICE, 'eu-west'),
    ]);
    expect(find(next.state.limitPools, poolOf(SERVICE, 'us-east')).reserved).toBe(10);
  });

  it('refuses to delete an organization with children', () => {
    expect(() => removeEntity(hierarchy, assignments, 'organizations/acme')).toThrow(
      expect.objectContaining({ status: 'FAILED_PRECONDITION' }),
    );
  });

  it('lists assignments of entities missing from the hierarchy as orphaned and gives them nothing', () => {
    const stray = { assignee: 'projects/gone', ...spec(projectPlan.name) };
    const next = recomputeTree(hierarchy, [...assignments, stray], plans, EMPTY);
    expect(next.orphanedAssignments).toEqual([stray]);
    expect(next.state.limits.some((limit) => limit.name.startsWith('projects/gone/'))).toBe(false);
  });

  it('refuses a hierarchy with a missing parent or a cycle', () => {
    const precondition = expect.objectContaining({ status: 'FAILED_PRECONDITION' });
    const missing = {
      organizations: [],
      projects: [{ name: 'projects/x', parentOrganization: 'organizations/nope', regions: [] }],
    };
    expect(() => recomputeTree(missing, [], plans, EMPTY)).toThrow(precondition);
    const cycle = {
      organizations: [
        { name: 'organizations/a', parentOrganization: 'organizations/b' },
        { name: 'organizations/b', parentOrganization: 'organizations/a' },
      ],
      projects: [],
    };
    expect(() => recomputeTree(cycle, [], plans, EMPTY)).toThrow(precondition);
  });
});
