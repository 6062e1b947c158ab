import { describe, expect, it } from 'vitest';
import { grantCovers, permissionMatches, scopeCovers } from '../../src/iam/permission-match.js';

const GET_DEVICE = 'services/devices.outpost/permissions/devices.get';

describe('permissionMatches', () => {
  it.each([
    ['*', GET_DEVICE, true],
    ['*', 'services/limits.outpost/permissions/plans.create', true],
    ['services/*/permissions/*', GET_DEVICE, true],
    ['services/devices.outpost/permissions/*', GET_DEVICE, true],
    ['services/devices.outpost/permissions/devices.*', GET_DEVICE, true],
    ['services/devices.outpost/permissions/*.get', GET_DEVICE, true],
    ['services/*.outpost/permissions/devices.get', GET_DEVICE, true],
    [GET_DEVICE, GET_DEVICE, true],
    ['services/limits.outpost/permissions/*', GET_DEVICE, false],
    ['services/devices.outpost/permissions/devices.list', GET_DEVICE, false],
    ['services/devices.outpost/permissions/pods.*', GET_DEVICE, false],
    ['services/devices.outpost/permissions/*.list', GET_DEVICE, false],
    ['services/*/permissions/*', 'services/x/permissions/a/b', false],
    ['services/devices.outpost/permissions/devices.ge', GET_DEVICE, false],
    ['services/devices.outpost/permissions/devices.get.', GET_DEVICE, false],
    ['services/devices+outpost/permissions/devices.get', 'services/devices+outpost/permissions/devices.get', true],
    ['services/devices.outpost/permissions/devices.ge?', GET_DEVICE, false],
  ])('%s covers %s: %s', (pattern, permission, expected) => {
    expect(permissionMatches(pattern, permission)).toBe(expected);
  });

  it('keeps a wildcard inside its segment', () => {
    expect(permissionMatches('services/*/permissions/x', 'services/a/b/permissions/x')).toBe(false);
  });
});

describe('scopeCovers', () => {
  const orgOf = (name: string): string[] =>
    name.startsWith('projects/p/') || name === 'projects/p' ? ['organizations/o'] : [];

  it.each([
    ['*', 'projects/p/regions/r/devices/d', true],
    ['*', '*', true],
    ['projects/p', 'projects/p', true],
    ['projects/p', 'projects/p/regions/r/devices/d', true],
    ['projects/p', 'projects/p/regions/-', true],
    ['projects/p', 'projects/pq/regions/r/devices/d', false],
    ['projects/p', 'projects/-/regions/-', false],
    ['projects/p', 'projects', false],
    ['projects/p', '*', false],
    ['projects/p/regions/r', 'projects/p/regions/s/devices/d', false],
    ['organizations/o', 'projects/p/regions/r/devices/d', false],
  ])('%s covers %s: %s', (scope, name, expected) => {
    expect(scopeCovers(scope, name)).toBe(expected);
  });

  it('covers names through their ancestors', () => {
    expect(scopeCovers('organizations/o', 'projects/p/regions/r/devices/d', orgOf)).toBe(true);
    expect(scopeCovers('organizations/o', 'projects/p', orgOf)).toBe(true);
    expect(scopeCovers('organizations/o', 'projects/q/regions/r', orgOf)).toBe(false);
    expect(scopeCovers('organizations/other', 'projects/p', orgOf)).toBe(false);
    expect(scopeCovers('organizations', 'projects/p', orgOf)).toBe(true);
  });
});

describe('grantCovers', () => {
  it.each([
    [{ permission: '*', scope: '*' }, { permission: '*', scope: '*' }, true],
    [{ permission: '*', scope: '*' }, { permission: GET_DEVICE, scope: 'projects/p' }, true],
    [{ permission: 'services/*/permissions/*', scope: '*' }, { permission: '*', scope: '*' }, false],
    [
      { permission: 'services/devices.outpost/permissions/*', scope: '*' },
      { permission: 'services/devices.outpost/permissions/devices.*', scope: '*' },
      true,
    ],
    [
      { permission: 'services/devices.outpost/permissions/devices.*', scope: '*' },
      { permission: 'services/devices.outpost/permissions/*', scope: '*' },
      false,
    ],
    [
      { permission: 'services/devices.outpost/permissions/devices.*', scope: '*' },
      { permission: 'services/*/permissions/devices.get', scope: '*' },
      false,
    ],
    [{ permission: '*', scope: 'projects/p' }, { permission: GET_DEVICE, scope: 'projects/p/regions/r' }, true],
    [{ permission: '*', scope: 'projects/p' }, { permission: GET_DEVICE, scope: '*' }, false],
    [{ permission: '*', scope: 'projects/p' }, { permission: GET_DEVICE, scope: 'projects/q' }, false],
  ])('%j covers %j: %s', (held, wanted, expected) => {
    expect(grantCovers(held, wanted)).toBe(expected);
  });
});
