import { describe, expect, it } from 'vitest';
import {
  checkPlanFitsAssignee,
  entityKind,
  limitId,
  limitName,
  nextPlanGeneration,
  parseResourceRef,
  poolName,
  regionsAdded,
  regionsRemoved,
  settleActiveLimit,
  settleActiveSize,
} from '../../../src/limits/core/index.js';
import { DEVICES, PODS, SERVICE, plan } from './fixtures.js';

describe('nextPlanGeneration', () => {
  const old = plan('p', 'PROJECT', { [DEVICES]: 10, [PODS]: 2 }, 4);

  it('starts at 1 and increments only when resourceLimits change', () => {
    expect(nextPlanGeneration(undefined, old)).toBe(1);
    expect(nextPlanGeneration(old, { resourceLimits: [...old.resourceLimits].reverse() })).toBe(4);
    expect(nextPlanGeneration(old, plan('p', 'PROJECT', { [DEVICES]: 11, [PODS]: 2 }))).toBe(5);
    expect(nextPlanGeneration(old, plan('p', 'PROJECT', { [DEVICES]: 10 }))).toBe(5);
  });
});

describe('active value rules', () => {
  it('a limit follows its configured value unless that falls below usage, then keeps the old one', () => {
    expect(settleActiveLimit(5, 3, 10)).toBe(5);
    expect(settleActiveLimit(5, 8, 10)).toBe(10);
    expect(settleActiveLimit(7, 8, 5)).toBe(7);
    expect(settleActiveLimit(5, 8, undefined)).toBe(5);
  });

  it('a pool is its configured size unless reserved is bigger', () => {
    expect(settleActiveSize(10, 4)).toBe(10);
    expect(settleActiveSize(10, 14)).toBe(14);
  });
});

describe('regionsAdded / regionsRemoved', () => {
  it('lists the regions that appeared or went, sorted and once', () => {
    expect(regionsAdded(['us-east'], ['us-east', 'eu-west', 'ap-south', 'eu-west'])).toEqual(['ap-south', 'eu-west']);
    expect(regionsRemoved(['us-east', 'eu-west'], ['eu-west'])).toEqual(['us-east']);
    expect(regionsAdded(['a'], ['a'])).toEqual([]);
  });
});

describe('names', () => {
  it('builds limit and pool ids as {region}/{serviceDomain}/{resourceKind}', () => {
    expect(parseResourceRef(DEVICES)).toEqual({ service: SERVICE, serviceDomain: 'devices.outpost', kind: 'devices' });
    expect(limitId('us-east', DEVICES)).toBe('us-east/devices.outpost/devices');
    expect(limitName('projects/p', 'us-east', DEVICES)).toBe('projects/p/limits/us-east/devices.outpost/devices');
    expect(poolName('organizations/o', 'eu-west', DEVICES)).toBe(
      'organizations/o/limitPools/eu-west/devices.outpost/devices',
    );
  });

  it('refuses malformed references', () => {
    expect(() => parseResourceRef('devices')).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }));
    expect(() => entityKind('regions/x')).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }));
    expect(entityKind('organizations/o')).toBe('organization');
  });
});

describe('checkPlanFitsAssignee', () => {
  it('takes a plan of the assignee’s level or of UNDEFINED level, for the same service', () => {
    expect(() => checkPlanFitsAssignee(plan('p', 'PROJECT', {}), 'projects/x', SERVICE)).not.toThrow();
    expect(() => checkPlanFitsAssignee(plan('any', 'UNDEFINED', {}), 'organizations/x', SERVICE)).not.toThrow();
    expect(() => checkPlanFitsAssignee(plan('s', 'SERVICE', {}), 'projects/x', SERVICE)).toThrow(
      expect.objectContaining({ status: 'INVALID_ARGUMENT' }),
    );
    expect(() => checkPlanFitsAssignee(plan('p', 'PROJECT', {}), 'projects/x', 'services/other')).toThrow(
      expect.objectContaining({ status: 'INVALID_ARGUMENT' }),
    );
  });
});
