import { describe, it, expect } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { ID_RULES, NamePattern, isWildcardParent } from '../../src/names/index.js';

const device = new NamePattern('projects/{project}/regions/{region}/devices/{device}', {
  project: ID_RULES.device,
  region: ID_RULES.device,
  device: ID_RULES.device,
});
const limit = new NamePattern('projects/{project}/limits/{limit}', { project: ID_RULES.device, limit: ID_RULES.limit });
const limitPool = new NamePattern('organizations/{organization}/limitPools/{limit_pool}', {
  organization: ID_RULES.device,
  limit_pool: ID_RULES.limit,
});
const osVersion = new NamePattern('osVersions/{osVersion}', { osVersion: ID_RULES.generic });
const plan = new NamePattern('services/{service}/plans/{plan}', { service: ID_RULES.service, plan: ID_RULES.generic });

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('NamePattern shape', () => {
  it('derives collection, id variable and parent template', () => {
    expect(device.collection).toBe('devices');
    expect(device.idVariable).toBe('device');
    expect(device.parentTemplate).toBe('projects/{project}/regions/{region}');
    expect(osVersion.collection).toBe('osVersions');
    expect(osVersion.parentTemplate).toBe('');
    expect(limitPool.idVariable).toBe('limit_pool');
  });

  it('refuses templates without rules or without a trailing collection/{id}', () => {
    expect(() => new NamePattern('projects/{project}/devices/{device}', { device: ID_RULES.device })).toThrow(
      /no id rule for \{project\}/,
    );
    expect(() => new NamePattern('projects/{project}', {})).toThrow();
    expect(() => new NamePattern('projects/{project}/devices', { project: ID_RULES.device })).toThrow(/must end/);
    expect(() => new NamePattern('{a}/{b}', { a: ID_RULES.device, b: ID_RULES.device })).toThrow(/must end/);
    expect(() => new NamePattern('a/{x}/b/{x}', { x: ID_RULES.device })).toThrow(/repeats/);
  });
});

describe('parse', () => {
  it('returns the ids of a matching name', () => {
    expect(device.parse('projects/p1/regions/eu-west/devices/dev-01')).toEqual({
      project: 'p1',
      region: 'eu-west',
      device: 'dev-01',
    });
    expect(osVersion.parse('osVersions/1.2.3_rc-1')).toEqual({ osVersion: '1.2.3_rc-1' });
    expect(plan.parse('services/limits.outpost/plans/Gold.Plan_2')).toEqual({
      service: 'limits.outpost',
      plan: 'Gold.Plan_2',
    });
  });

  it('returns null for other shapes, malformed ids and wildcards', () => {
    for (const name of [
      'projects/p1/regions/r1/pods/x1',
      'projects/p1/regions/r1/devices',
      'projects/p1/regions/r1/devices/d1/extra',
      'projects/p1/regions//devices/d1',
      'projects/P1/regions/r1/devices/d1',
      'projects/p1/regions/r1/devices/1abc',
      'projects/p1/regions/r1/devices/abc-',
      'projects/p1/regions/r1/devices/a',
      `projects/p1/regions/r1/devices/a${'b'.repeat(30)}`,
      'projects/p1/regions/-/devices/d1',
      'projects/p1/regions/r1/devices/-',
      '',
      '/projects/p1/regions/r1/devices/d1',
    ]) {
      expect(device.parse(name), name).toBeNull();
    }
    expect(osVersion.parse('osVersions/-')).toBeNull();
    expect(osVersion.parse(`osVersions/${'x'.repeat(129)}`)).toBeNull();
    expect(osVersion.parse(`osVersions/${'x'.repeat(128)}`)).not.toBeNull();
  });

  it('accepts the longest device id and the shortest', () => {
    expect(device.idOf(`projects/p1/regions/r1/devices/a${'b'.repeat(29)}`)).toBe(`a${'b'.repeat(29)}`);
    expect(device.idOf('projects/p1/regions/r1/devices/ab')).toBe('ab');
  });

  it('reads three-segment limit ids', () => {
    expect(limit.parse('projects/p1/limits/eu-west/devices.outpost/devices')).toEqual({
      project: 'p1',
      limit: 'eu-west/devices.outpost/devices',
    });
    expect(limit.idOf('projects/p1/limits/eu-west/devices.outpost/devices')).toBe('eu-west/devices.outpost/devices');
    expect(limit.parentOf('projects/p1/limits/eu-west/devices.outpost/devices')).toBe('projects/p1');
    expect(limitPool.parse('organizations/acme/limitPools/us/limits.outpost/Plans')).toEqual({
      organization: 'acme',
      limit_pool: 'us/limits.outpost/Plans',
    });
  });

  it('refuses limit ids with the wrong number of segments or characters', () => {
    expect(limit.parse('projects/p1/limits/eu-west/devices')).toBeNull();
    expect(limit.parse('projects/p1/limits/eu-west/devices.outpost/devices/x')).toBeNull();
    expect(limit.parse('projects/p1/limits/eu-west/devices.outpost/devices2')).toBeNull();
    expect(limit.parse('projects/p1/limits/eu_west/devices.outpost/devices')).toBeNull();
    expect(limit.parse('projects/p1/limits/eu-west//devices')).toBeNull();
  });
});

describe('parentOf and idOf', () => {
  it('split a name', () => {
    expect(device.parentOf('projects/p1/regions/r1/devices/d1')).toBe('projects/p1/regions/r1');
    expect(device.idOf('projects/p1/regions/r1/devices/d1')).toBe('d1');
    expect(osVersion.parentOf('osVersions/v1')).toBe('');
    expect(osVersion.idOf('osVersions/v1')).toBe('v1');
  });

  it('return null for names of another shape', () => {
    expect(device.parentOf('projects/p1/regions/r1/pods/d1')).toBeNull();
    expect(device.idOf('nope')).toBeNull();
  });
});

describe('format', () => {
  it('builds a name from its ids', () => {
    expect(device.format({ project: 'p1', region: 'r1', device: 'd1' })).toBe('projects/p1/regions/r1/devices/d1');
    expect(limit.format({ project: 'p1', limit: 'r1/devices.outpost/devices' })).toBe(
      'projects/p1/limits/r1/devices.outpost/devices',
    );
  });

  it('names the variable of a malformed or missing id', () => {
    const bad = apiErrorOf(() => device.format({ project: 'p1', region: 'r1', device: 'Bad_Id' }));
    expect(bad.status).toBe('INVALID_ARGUMENT');
    expect(bad.message).toBe('device id "Bad_Id" must match [a-z][a-z0-9-]{0,28}[a-z0-9]');
    expect(apiErrorOf(() => device.format({ project: 'p1', device: 'd1' })).message).toBe('missing region id');
    expect(apiErrorOf(() => device.format({ project: 'p1', region: '-', device: 'd1' })).message).toMatch(
      /region id "-" is the wildcard/,
    );
    expect(apiErrorOf(() => limit.format({ project: 'p1', limit: 'r1/devices' })).message).toBe(
      'limit id "r1/devices" must be region/service/kind, matching [a-zA-Z0-9-]{1,128}/[a-zA-Z0-9-.]{1,128}/[a-zA-Z]{1,128}',
    );
  });
});

describe('parents and wildcards', () => {
  it('parses parents, with "-" for any id', () => {
    expect(device.parseParent('projects/p1/regions/r1')).toEqual({ project: 'p1', region: 'r1' });
    expect(device.parseParent('projects/p1/regions/-')).toEqual({ project: 'p1', region: '-' });
    expect(device.parseParent('projects/-/regions/-')).toEqual({ project: '-', region: '-' });
    expect(device.parseParent('projects/p1')).toBeNull();
    expect(device.parseParent('projects/p1/regions/r1/devices')).toBeNull();
    expect(device.parseParent('projects/P/regions/r1')).toBeNull();
    expect(osVersion.parseParent('')).toEqual({});
    expect(osVersion.parseParent('projects/p1')).toBeNull();
  });

  it('tells wildcard parents', () => {
    expect(isWildcardParent('projects/p1/regions/-')).toBe(true);
    expect(isWildcardParent('projects/-/regions/r1')).toBe(true);
    expect(isWildcardParent('projects/p1/regions/r1')).toBe(false);
    expect(isWildcardParent('projects/p-1/regions/r-1')).toBe(false);
    expect(isWildcardParent('')).toBe(false);
  });

  it('matches children of a parent, honouring wildcards', () => {
    const name = 'projects/p1/regions/r1/devices/d1';
    expect(device.matchesParent('projects/p1/regions/r1', name)).toBe(true);
    expect(device.matchesParent('projects/p1/regions/-', name)).toBe(true);
    expect(device.matchesParent('projects/-/regions/-', name)).toBe(true);
    expect(device.matchesParent('projects/-/regions/r1', name)).toBe(true);
    expect(device.matchesParent('projects/p1/regions/r2', name)).toBe(false);
    expect(device.matchesParent('projects/p2/regions/-', name)).toBe(false);
    expect(device.matchesParent('projects/p1/regions/-', 'projects/p1/regions/r1/pods/d1')).toBe(false);
    expect(device.matchesParent('projects/p1', name)).toBe(false);
    expect(osVersion.matchesParent('', 'osVersions/v1')).toBe(true);
    expect(limit.matchesParent('projects/-', 'projects/p1/limits/r1/devices.outpost/devices')).toBe(true);
    expect(limit.matchesParent('projects/p2', 'projects/p1/limits/r1/devices.outpost/devices')).toBe(false);
  });

  it('gives the literal prefix before the first wildcard', () => {
    expect(device.literalPrefix('projects/p1/regions/r1')).toBe('projects/p1/regions/r1/devices/');
    expect(device.literalPrefix('projects/p1/regions/-')).toBe('projects/p1/regions/');
    expect(device.literalPrefix('projects/-/regions/r1')).toBe('projects/');
    expect(osVersion.literalPrefix('')).toBe('osVersions/');
    expect(limit.literalPrefix('projects/p1')).toBe('projects/p1/limits/');
    expect(apiErrorOf(() => device.literalPrefix('projects/p1')).status).toBe('INVALID_ARGUMENT');
  });

  it('every child name of a parent starts with its literal prefix', () => {
    const name = 'projects/p1/regions/r1/devices/d1';
    for (const parent of [
      'projects/p1/regions/r1',
      'projects/p1/regions/-',
      'projects/-/regions/r1',
      'projects/-/regions/-',
    ]) {
      expect(device.matchesParent(parent, name)).toBe(true);
      expect(name.startsWith(device.literalPrefix(parent))).toBe(true);
    }
  });
});

describe('nameInParent', () => {
  it('appends collection and id', () => {
    expect(device.nameInParent('projects/p1/regions/r1', 'd1')).toBe('projects/p1/regions/r1/devices/d1');
    expect(osVersion.nameInParent('', '1.0.2')).toBe('osVersions/1.0.2');
    expect(limit.nameInParent('projects/p1', 'r1/devices.outpost/devices')).toBe(
      'projects/p1/limits/r1/devices.outpost/devices',
    );
  });

  it('refuses malformed ids, malformed parents and wildcard parents', () => {
    expect(apiErrorOf(() => device.nameInParent('projects/p1/regions/r1', 'D1')).message).toBe(
      'device id "D1" must match [a-z][a-z0-9-]{0,28}[a-z0-9]',
    );
    expect(apiErrorOf(() => device.nameInParent('projects/p1/regions/r1', 'a/b')).status).toBe('INVALID_ARGUMENT');
    expect(apiErrorOf(() => device.nameInParent('projects/p1', 'd1')).message).toBe(
      'invalid parent "projects/p1": must look like projects/{project}/regions/{region}',
    );
    expect(apiErrorOf(() => device.nameInParent('projects/p1/regions/-', 'd1')).message).toMatch(/wildcard/);
    expect(apiErrorOf(() => osVersion.nameInParent('', '-')).status).toBe('INVALID_ARGUMENT');
  });

  it('round-trips through parse', () => {
    const name = device.nameInParent('projects/p1/regions/r1', 'd1');
    expect(device.parentOf(name)).toBe('projects/p1/regions/r1');
    expect(device.idOf(name)).toBe('d1');
  });
});
