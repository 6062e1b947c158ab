import { describe, expect, it } from 'vitest';
import {
  materializeAssignment,
  recomputeEntity,
  recomputeTree,
  type Allowance,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { DEVICES, SERVICE, allowance, spec } from './fixtures.js';
import { assignments, hierarchy, limitOf, plans, poolOf, servicePlan } from './tree-fixture.js';

const state = recomputeTree(hierarchy, assignments, plans, { limitPools: [], limits: [] }).state;
const ownOf = (entity: string): TreeState => ({
  limitPools: state.limitPools.filter((p) => p.name.startsWith(`${entity}/`)),
  limits: state.limits.filter((l) => l.name.startsWith(`${entity}/`)),
});
const change = (entity: string, allowances: Allowance[]) =>
  recomputeEntity({ entity, allowances, own: ownOf(entity), ancestors: state.limitPools });

describe('recomputeEntity', () => {
  it('after a service-level plan change touches only the service pools', () => {
    const bigger = new Map(plans).set(servicePlan.name, {
      ...servicePlan,
      resourceLimits: [{ resource: DEVICES, value: 5000 }],
    });
    const allowances = materializeAssignment(spec(servicePlan.name), bigger, ['eu-west', 'us-east']).allowances;
    const diff = recomputeEntity({ entity: SERVICE, allowances, own: ownOf(SERVICE), ancestors: [] });
    expect(diff?.updatedPools.map((p) => [p.name, p.configuredSize, p.reserved])).toEqual([
      [poolOf(SERVICE, 'eu-west'), 5000, 100],
      [poolOf(SERVICE, 'us-east'), 5000, 110],
    ]);
    expect(diff?.updatedLimits).toEqual([]);
  });

  it('carries a project’s new reservation up the source chain', () => {
    const diff = change('projects/factory', [allowance(DEVICES, 10, 'eu-west'), allowance(DEVICES, 30, 'us-east')]);
    expect(diff?.updatedLimits.map((l) => [l.name, l.configuredLimit])).toEqual([
      [limitOf('projects/factory', 'us-east'), 30],
    ]);
    // acme-eu us-east: 50 ≥ 30 reserved, so acme and the service do not change
    expect(diff?.updatedPools.map((p) => [p.name, p.reserved, p.activeSize])).toEqual([
      [poolOf('organizations/acme-eu', 'us-east'), 30, 50],
    ]);
  });

  it('goes further up when a pool is pushed over its configured size', () => {
    const diff = change('projects/factory', [allowance(DEVICES, 10, 'eu-west'), allowance(DEVICES, 70, 'us-east')]);
    expect(diff?.updatedPools.map((p) => [p.name, p.reserved, p.activeSize])).toEqual([
      [poolOf('organizations/acme-eu', 'us-east'), 70, 70],
      [poolOf('organizations/acme', 'us-east'), 70, 100],
    ]);
  });

  it('matches recomputeTree for the same change', () => {
    const changed = assignments.map((a) =>
      a.assignee === 'organizations/acme' ? { ...a, extensions: [allowance(DEVICES, -80)] } : a,
    );
    const full = recomputeTree(hierarchy, changed, plans, state).diff;
    const incremental = change('organizations/acme', [
      allowance(DEVICES, 20, 'eu-west'),
      allowance(DEVICES, 20, 'us-east'),
    ]);
    expect(incremental?.updatedPools.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      full.updatedPools.sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it('defers to recomputeTree when entries would be created or deleted', () => {
    expect(change('projects/factory', [allowance(DEVICES, 10, 'ap-south')])).toBeUndefined();
    expect(change('projects/factory', [allowance(DEVICES, 10, 'eu-west')])).toBeUndefined();
    expect(change('organizations/acme', [allowance(DEVICES, 10, 'eu-west')])).toBeDefined();
  });

  it('needs the source chain', () => {
    expect(() =>
      recomputeEntity({
        entity: 'projects/solo',
        allowances: [allowance(DEVICES, 20, 'us-east')],
        own: ownOf('projects/solo'),
        ancestors: [],
      }),
    ).toThrow(expect.objectContaining({ status: 'FAILED_PRECONDITION' }));
  });
});
