import { describe, expect, it } from 'vitest';
import { computeAllowances, indexPlans, materializeAssignment } from '../../../src/limits/core/index.js';
import { DEVICES, PODS, allowance, plan, spec } from './fixtures.js';

const small = plan('small', 'PROJECT', { [DEVICES]: 10, [PODS]: 5 }, 3);
const large = plan('large', 'PROJECT', { [DEVICES]: 100 }, 7);
const plans = indexPlans([small, large]);

describe('computeAllowances', () => {
  it('applies the default plan to each applied region', () => {
    expect(computeAllowances(spec(small.name), plans, ['us-east', 'eu-west'])).toEqual([
      allowance(DEVICES, 10, 'eu-west'),
      allowance(PODS, 5, 'eu-west'),
      allowance(DEVICES, 10, 'us-east'),
      allowance(PODS, 5, 'us-east'),
    ]);
  });

  it('uses a region override instead of the default plan in that region', () => {
    const s = spec(small.name, { regionalPlanOverrides: [{ plan: large.name, region: 'eu-west', planGeneration: 7 }] });
    expect(computeAllowances(s, plans, ['us-east', 'eu-west'])).toEqual([
      allowance(DEVICES, 100, 'eu-west'),
      allowance(DEVICES, 10, 'us-east'),
      allowance(PODS, 5, 'us-east'),
    ]);
  });

  it('adds extensions of the region and of all regions, and extensions of resources the plan lacks', () => {
    const s = spec(large.name, {
      extensions: [allowance(DEVICES, 5), allowance(DEVICES, 20, 'us-east'), allowance(PODS, 3, 'us-east')],
    });
    expect(computeAllowances(s, plans, ['us-east', 'eu-west'])).toEqual([
      allowance(DEVICES, 105, 'eu-west'),
      allowance(DEVICES, 125, 'us-east'),
      allowance(PODS, 3, 'us-east'),
    ]);
  });

  it('takes negative extensions and clamps the final value at 0', () => {
    const s = spec(small.name, { extensions: [allowance(DEVICES, -4), allowance(PODS, -50, 'us-east')] });
    expect(computeAllowances(s, plans, ['us-east'])).toEqual([
      allowance(DEVICES, 6, 'us-east'),
      allowance(PODS, 0, 'us-east'),
    ]);
  });

  it('ignores extensions of regions the entity is not in, and gives nothing without regions', () => {
    const s = spec(small.name, { extensions: [allowance(DEVICES, 9, 'ap-south')] });
    expect(computeAllowances(s, plans, ['us-east'])).toEqual([
      allowance(DEVICES, 10, 'us-east'),
      allowance(PODS, 5, 'us-east'),
    ]);
    expect(computeAllowances(s, plans, [])).toEqual([]);
  });

  it('gives only extensions in regions without default plan or override', () => {
    const s = spec('', {
      regionalPlanOverrides: [{ plan: large.name, region: 'us-east', planGeneration: 0 }],
      extensions: [allowance(PODS, 2)],
    });
    expect(computeAllowances(s, plans, ['us-east', 'eu-west'])).toEqual([
      allowance(PODS, 2, 'eu-west'),
      allowance(DEVICES, 100, 'us-east'),
      allowance(PODS, 2, 'us-east'),
    ]);
  });

  it('refuses a reference to a missing plan with FAILED_PRECONDITION', () => {
    expect(() => computeAllowances(spec('services/devices.outpost/plans/gone'), plans, ['us-east'])).toThrow(
      expect.objectContaining({ status: 'FAILED_PRECONDITION' }),
    );
  });
});

describe('materializeAssignment', () => {
  it('fills allowances, sorted applied regions and the plan generations', () => {
    const s = spec(small.name, { regionalPlanOverrides: [{ plan: large.name, region: 'eu-west', planGeneration: 0 }] });
    const assignment = materializeAssignment(s, plans, ['us-east', 'eu-west', 'us-east']);
    expect(assignment.appliedRegions).toEqual(['eu-west', 'us-east']);
    expect(assignment.appliedPlanSpecGeneration).toBe(3);
    expect(assignment.regionalPlanOverrides).toEqual([{ plan: large.name, region: 'eu-west', planGeneration: 7 }]);
    expect(assignment.allowances).toHaveLength(3);
  });

  it('records generation 0 when there is no default plan', () => {
    expect(
      materializeAssignment(spec('', { extensions: [allowance(DEVICES, 1)] }), plans, ['x']).appliedPlanSpecGeneration,
    ).toBe(0);
  });
});
