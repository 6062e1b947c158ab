import { describe, expect, it } from 'vitest';
import {
  capacityError,
  checkCapacity,
  indexHierarchy,
  lookupTree,
  recomputeTree,
  type TreeState,
} from '../../../src/limits/core/index.js';
import { DEVICES, SERVICE, allowance } from './fixtures.js';
import { assignments, hierarchy, limitOf, poolOf, plans } from './tree-fixture.js';

const index = indexHierarchy(hierarchy);
const state = recomputeTree(hierarchy, assignments, plans, { limitPools: [], limits: [] }).state;
const tree = lookupTree(state);
const factory = (us: number, eu = 10) => [allowance(DEVICES, eu, 'eu-west'), allowance(DEVICES, us, 'us-east')];

describe('checkCapacity', () => {
  it('accepts a raise that fits in what the parent pool has left', () => {
    // acme-eu us-east: configured 50, reserved 10 by factory itself → factory may grow to 50
    expect(checkCapacity(index, tree, 'projects/factory', factory(50))).toEqual({ ok: true });
  });

  it('refuses a raise beyond the parent pool with the resource, region and what is available', () => {
    expect(checkCapacity(index, tree, 'projects/factory', factory(51))).toEqual({
      ok: false,
      violation: {
        resource: DEVICES,
        region: 'us-east',
        requested: 51,
        available: 50,
        parentPool: poolOf('organizations/acme-eu', 'us-east'),
      },
    });
  });

  it('counts what the other children reserve', () => {
    // service us-east: 1000, reserved by acme (100) and solo (10) → solo may have 900
    expect(checkCapacity(index, tree, 'projects/solo', [allowance(DEVICES, 900, 'us-east')]).ok).toBe(true);
    const refused = checkCapacity(index, tree, 'projects/solo', [allowance(DEVICES, 901, 'us-east')]);
    expect(refused).toMatchObject({ ok: false, violation: { available: 900, parentPool: poolOf(SERVICE, 'us-east') } });
  });

  it('checks an organization against its parent organization', () => {
    // acme us-east: 100, reserved 50 by acme-eu alone
    expect(checkCapacity(index, tree, 'organizations/acme-eu', [allowance(DEVICES, 101, 'us-east')])).toMatchObject({
      ok: false,
      violation: { available: 100, parentPool: poolOf('organizations/acme', 'us-east') },
    });
  });

  it('lets lowerings and unchanged values pass even when the parent is already over-reserved', () => {
    const squeezed: TreeState = {
      ...state,
      limitPools: state.limitPools.map((pool) =>
        pool.name === poolOf('organizations/acme-eu', 'us-east')
          ? { ...pool, configuredSize: 5, activeSize: 10 }
          : pool,
      ),
    };
    expect(checkCapacity(index, lookupTree(squeezed), 'projects/factory', factory(10)).ok).toBe(true);
    expect(checkCapacity(index, lookupTree(squeezed), 'projects/factory', factory(3)).ok).toBe(true);
    expect(checkCapacity(index, lookupTree(squeezed), 'projects/factory', factory(11)).ok).toBe(false);
  });

  it('refuses any raise without a backing parent pool', () => {
    const bare = lookupTree({ limitPools: [], limits: [] });
    expect(checkCapacity(index, bare, 'projects/solo', [allowance(DEVICES, 1, 'us-east')])).toMatchObject({
      ok: false,
      violation: { available: 0, parentPool: poolOf(SERVICE, 'us-east') },
    });
    expect(checkCapacity(index, bare, 'projects/solo', [allowance(DEVICES, 0, 'us-east')]).ok).toBe(true);
  });

  it('exempts the service’s own assignment', () => {
    expect(
      checkCapacity(index, lookupTree({ limitPools: [], limits: [] }), SERVICE, [
        allowance(DEVICES, 10 ** 9, 'us-east'),
      ]),
    ).toEqual({
      ok: true,
    });
  });

  it('counts a limit held above its configured value by usage as already reserved', () => {
    const conflicted: TreeState = {
      ...state,
      limits: state.limits.map((limit) =>
        limit.name === limitOf('projects/factory', 'us-east')
          ? { ...limit, configuredLimit: 5, activeLimit: 50, usage: 40 }
          : limit,
      ),
    };
    // factory holds 50 of acme-eu's 50: raising its configured value to 30 changes no reservation
    expect(checkCapacity(index, lookupTree(conflicted), 'projects/factory', factory(30)).ok).toBe(true);
  });

  it('maps a violation to FAILED_PRECONDITION', () => {
    const result = checkCapacity(index, tree, 'projects/factory', factory(51));
    if (result.ok) throw new Error('expected a violation');
    expect(capacityError(result.violation)).toMatchObject({ status: 'FAILED_PRECONDITION' });
  });
});
