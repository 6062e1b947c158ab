import { describe, expect, it } from 'vitest';
import { applyRequest } from '../../../src/limits/core/index.js';
import { DEVICES, PODS, SERVICE, allowance, spec } from './fixtures.js';

const SMALL = `${SERVICE}/plans/small`;
const LARGE = `${SERVICE}/plans/large`;
const ASSIGNMENT = 'projects/p1/planAssignments/devices';
const override = (plan: string, region: string) => ({ plan, region, planGeneration: 0 });

describe('applyRequest: assign', () => {
  it('without region and without an assignment creates one with the default plan and all-region extensions', () => {
    const next = applyRequest(
      undefined,
      { assign: { plan: SMALL, extensions: [allowance(DEVICES, 5)], region: '' } },
      SERVICE,
    );
    expect(next).toEqual(spec(SMALL, { extensions: [allowance(DEVICES, 5)] }));
  });

  it('without region replaces the default plan (upgrade or downgrade) but keeps region overrides', () => {
    const current = spec(SMALL, { regionalPlanOverrides: [override(LARGE, 'eu-west')] });
    const next = applyRequest(current, { assign: { plan: LARGE, extensions: [], region: '' } }, SERVICE);
    expect(next).toEqual(spec(LARGE, { regionalPlanOverrides: [override(LARGE, 'eu-west')] }));
  });

  it('without region replaces the all-region extensions and keeps region-specific ones', () => {
    const current = spec(SMALL, { extensions: [allowance(DEVICES, 5), allowance(PODS, 2, 'eu-west')] });
    const next = applyRequest(
      current,
      { assign: { plan: SMALL, extensions: [allowance(PODS, 1)], region: '' } },
      SERVICE,
    );
    expect(next?.extensions).toEqual([allowance(PODS, 2, 'eu-west'), allowance(PODS, 1)]);
  });

  it('without region, an extension naming a region replaces that resource there', () => {
    const current = spec(SMALL, { extensions: [allowance(PODS, 2, 'eu-west'), allowance(DEVICES, 3, 'eu-west')] });
    const next = applyRequest(
      current,
      { assign: { plan: SMALL, extensions: [allowance(PODS, 9, 'eu-west')], region: '' } },
      SERVICE,
    );
    expect(next?.extensions).toEqual([allowance(DEVICES, 3, 'eu-west'), allowance(PODS, 9, 'eu-west')]);
  });

  it('with region adds an override for that region only, keeping the default plan', () => {
    const next = applyRequest(spec(SMALL), { assign: { plan: LARGE, extensions: [], region: 'eu-west' } }, SERVICE);
    expect(next).toEqual(spec(SMALL, { regionalPlanOverrides: [override(LARGE, 'eu-west')] }));
  });

  it('with region replaces an existing override of that region and leaves other regions alone', () => {
    const current = spec(SMALL, { regionalPlanOverrides: [override(LARGE, 'eu-west'), override(LARGE, 'us-east')] });
    const next = applyRequest(current, { assign: { plan: SMALL, extensions: [], region: 'eu-west' } }, SERVICE);
    expect(next?.regionalPlanOverrides).toEqual([override(LARGE, 'us-east'), override(SMALL, 'eu-west')]);
  });

  it('with region discards that region’s extensions and applies the given ones to that region only', () => {
    const current = spec(SMALL, {
      extensions: [allowance(DEVICES, 5), allowance(DEVICES, 7, 'eu-west'), allowance(PODS, 1, 'us-east')],
    });
    const next = applyRequest(
      current,
      { assign: { plan: LARGE, extensions: [allowance(PODS, 4), allowance(PODS, 1, 'eu-west')], region: 'eu-west' } },
      SERVICE,
    );
    expect(next?.extensions).toEqual([
      allowance(DEVICES, 5),
      allowance(PODS, 1, 'us-east'),
      allowance(PODS, 5, 'eu-west'),
    ]);
  });

  it('with region and without an assignment creates one holding only that override', () => {
    const next = applyRequest(undefined, { assign: { plan: LARGE, extensions: [], region: 'eu-west' } }, SERVICE);
    expect(next).toEqual(spec('', { regionalPlanOverrides: [override(LARGE, 'eu-west')] }));
  });

  it('refuses an extension for another region, a missing plan and malformed values', () => {
    const invalid = expect.objectContaining({ status: 'INVALID_ARGUMENT' });
    const assign = (plan: string, region: string, extensions = [allowance(DEVICES, 1, 'us-east')]) =>
      applyRequest(undefined, { assign: { plan, extensions, region } }, SERVICE);
    expect(() => assign(SMALL, 'eu-west')).toThrow(invalid);
    expect(() => assign('', '')).toThrow(invalid);
    expect(() => assign(SMALL, '', [allowance('devices', 1)])).toThrow(invalid);
    expect(() => assign(SMALL, '', [allowance(DEVICES, 1.5)])).toThrow(invalid);
    expect(() => assign(SMALL, 'bad/region', [])).toThrow(invalid);
  });
});

describe('applyRequest: extend', () => {
  it('merges additions per resource and region, adding to existing extensions', () => {
    const current = spec(SMALL, { extensions: [allowance(DEVICES, 5), allowance(DEVICES, 2, 'eu-west')] });
    const next = applyRequest(
      current,
      { extend: { assignment: ASSIGNMENT, additions: [allowance(DEVICES, 3), allowance(PODS, 4, 'eu-west')] } },
      SERVICE,
    );
    expect(next).toEqual(
      spec(SMALL, {
        extensions: [allowance(DEVICES, 8), allowance(DEVICES, 2, 'eu-west'), allowance(PODS, 4, 'eu-west')],
      }),
    );
  });

  it('may decrease limits, and drops an extension that reaches zero', () => {
    const current = spec(SMALL, { extensions: [allowance(DEVICES, 5)] });
    const next = applyRequest(
      current,
      { extend: { assignment: ASSIGNMENT, additions: [allowance(DEVICES, -5), allowance(PODS, -2)] } },
      SERVICE,
    );
    expect(next?.extensions).toEqual([allowance(PODS, -2)]);
  });

  it('needs an existing assignment', () => {
    expect(() => applyRequest(undefined, { extend: { assignment: ASSIGNMENT, additions: [] } }, SERVICE)).toThrow(
      expect.objectContaining({ status: 'NOT_FOUND' }),
    );
  });
});

describe('applyRequest: unassign', () => {
  it('with empty region removes the assignment', () => {
    expect(applyRequest(spec(SMALL), { unassign: { assignment: ASSIGNMENT, region: '' } }, SERVICE)).toBeUndefined();
  });

  it('with region removes only that region’s override, keeping the extensions', () => {
    const current = spec(SMALL, {
      regionalPlanOverrides: [override(LARGE, 'eu-west'), override(LARGE, 'us-east')],
      extensions: [allowance(DEVICES, 1, 'eu-west')],
    });
    const next = applyRequest(current, { unassign: { assignment: ASSIGNMENT, region: 'eu-west' } }, SERVICE);
    expect(next).toEqual(
      spec(SMALL, {
        regionalPlanOverrides: [override(LARGE, 'us-east')],
        extensions: [allowance(DEVICES, 1, 'eu-west')],
      }),
    );
  });

  it('removes an assignment left with no plan and no extension', () => {
    const current = spec('', { regionalPlanOverrides: [override(LARGE, 'eu-west')] });
    expect(applyRequest(current, { unassign: { assignment: ASSIGNMENT, region: 'eu-west' } }, SERVICE)).toBeUndefined();
  });

  it('refuses a region without override and a missing assignment', () => {
    expect(() =>
      applyRequest(spec(SMALL), { unassign: { assignment: ASSIGNMENT, region: 'eu-west' } }, SERVICE),
    ).toThrow(expect.objectContaining({ status: 'FAILED_PRECONDITION' }));
    expect(() => applyRequest(undefined, { unassign: { assignment: ASSIGNMENT, region: '' } }, SERVICE)).toThrow(
      expect.objectContaining({ status: 'NOT_FOUND' }),
    );
  });
});
