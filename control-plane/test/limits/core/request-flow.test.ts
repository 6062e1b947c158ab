import { describe, expect, it } from 'vitest';
import {
  assignerOf,
  indexHierarchy,
  lookupTree,
  recomputeTree,
  requestEffect,
  submitRequest,
  usageOf,
  type LimitsSnapshot,
} from '../../../src/limits/core/index.js';
import { DEVICES, SERVICE, allowance, spec } from './fixtures.js';
import { assignments, hierarchy, limitOf, orgPlan, plans, projectPlan, servicePlan } from './tree-fixture.js';

const index = indexHierarchy(hierarchy);
const state = recomputeTree(hierarchy, assignments, plans, { limitPools: [], limits: [] }).state;
const snapshot: LimitsSnapshot = { index, tree: lookupTree(state), plans };
const factorySpec = spec(projectPlan.name);
const ASSIGNMENT = 'projects/factory/planAssignments/devices';

describe('submitRequest', () => {
  it('approves a lowering at once and computes the new assignment', () => {
    const outcome = submitRequest(snapshot, {
      assignee: 'projects/factory',
      service: SERVICE,
      current: factorySpec,
      request: { extend: { assignment: ASSIGNMENT, additions: [allowance(DEVICES, -3)] } },
      requesterIsSystem: false,
    });
    expect(outcome.decision.conclusion).toBe('APPROVED');
    expect(outcome.capacity).toEqual({ ok: true });
    expect(outcome.next?.allowances).toEqual([allowance(DEVICES, 7, 'eu-west'), allowance(DEVICES, 7, 'us-east')]);
  });

  it('leaves a raise pending and reports whether the parent can back it', () => {
    const outcome = submitRequest(snapshot, {
      assignee: 'projects/factory',
      service: SERVICE,
      current: factorySpec,
      request: { extend: { assignment: ASSIGNMENT, additions: [allowance(DEVICES, 100, 'us-east')] } },
      requesterIsSystem: false,
    });
    expect(outcome.decision.conclusion).toBe('PENDING');
    expect(outcome.capacity.ok).toBe(false);
  });

  it('leaves unassign-all pending while the project’s limits are in use', () => {
    const busy = state.limits.map((l) => (l.name === limitOf('projects/factory', 'eu-west') ? { ...l, usage: 2 } : l));
    const outcome = submitRequest(
      { ...snapshot, tree: lookupTree({ ...state, limits: busy }) },
      {
        assignee: 'projects/factory',
        service: SERVICE,
        current: factorySpec,
        request: { unassign: { assignment: ASSIGNMENT, region: '' } },
        requesterIsSystem: false,
      },
    );
    expect(outcome.next).toBeUndefined();
    expect(outcome.decision.conclusion).toBe('PENDING');
  });

  it('refuses a plan of the wrong level or of another service', () => {
    const assign = (plan: string) =>
      requestEffect(snapshot, {
        assignee: 'projects/factory',
        service: SERVICE,
        current: factorySpec,
        request: { assign: { plan, extensions: [], region: '' } },
      });
    expect(() => assign(orgPlan.name)).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }));
    expect(() => assign('services/devices.outpost/plans/none')).toThrow(
      expect.objectContaining({ status: 'FAILED_PRECONDITION' }),
    );
  });

  it('exempts the service assigning itself', () => {
    const effect = requestEffect(snapshot, {
      assignee: SERVICE,
      service: SERVICE,
      current: undefined,
      request: { assign: { plan: servicePlan.name, extensions: [allowance(DEVICES, 10 ** 6)], region: '' } },
    });
    expect(effect.capacity).toEqual({ ok: true });
  });
});

describe('assignerOf and usageOf', () => {
  it('names the parent organization, else the service, as assigner', () => {
    expect(assignerOf(index, 'projects/factory', SERVICE)).toBe('organizations/acme-eu');
    expect(assignerOf(index, 'projects/solo', SERVICE)).toBe(SERVICE);
    expect(assignerOf(index, 'organizations/acme', SERVICE)).toBe(SERVICE);
    expect(assignerOf(index, SERVICE, SERVICE)).toBe(SERVICE);
  });

  it('reads usage of a project’s limits and reserved of an organization’s pools', () => {
    expect(usageOf(snapshot.tree, 'projects/factory', SERVICE).map((u) => u.usage)).toEqual([0, 0]);
    expect(usageOf(snapshot.tree, 'organizations/acme', SERVICE).map((u) => u.usage)).toEqual([50, 50]);
    expect(usageOf(snapshot.tree, 'organizations/acme', 'services/other')).toEqual([]);
  });
});
