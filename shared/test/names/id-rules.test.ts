import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ID_RULES, NamePattern, describeRule, generateId, isValidId } from '../../src/names/index.js';

describe('ID_RULES', () => {
  it('follow the spec formats', () => {
    expect(isValidId(ID_RULES.device, 'ab')).toBe(true);
    expect(isValidId(ID_RULES.device, 'a')).toBe(false);
    expect(isValidId(ID_RULES.device, 'a-b-1')).toBe(true);
    expect(isValidId(ID_RULES.device, 'a_b')).toBe(false);
    expect(isValidId(ID_RULES.generic, 'A.b_c-1')).toBe(true);
    expect(isValidId(ID_RULES.generic, 'a/b')).toBe(false);
    expect(isValidId(ID_RULES.request, 'req-1')).toBe(true);
    expect(isValidId(ID_RULES.request, 'Req')).toBe(false);
    expect(isValidId(ID_RULES.service, 'devices.outpost')).toBe(true);
    expect(isValidId(ID_RULES.service, 'Devices.outpost')).toBe(false);
    expect(isValidId(ID_RULES.service, 'devices.')).toBe(false);
    expect(isValidId(ID_RULES.limit, 'eu-1/devices.outpost/devices')).toBe(true);
    expect(isValidId(ID_RULES.limit, 'eu-1/devices.outpost')).toBe(false);
    expect(ID_RULES.limit.segments).toBe(3);
  });

  it('never takes the wildcard as an id', () => {
    expect(isValidId(ID_RULES.generic, '-')).toBe(false);
  });

  it('describe themselves without anchors', () => {
    expect(describeRule(ID_RULES.device)).toBe('[a-z][a-z0-9-]{0,28}[a-z0-9]');
    expect(describeRule(ID_RULES.limit)).toBe('[a-zA-Z0-9-]{1,128}/[a-zA-Z0-9-.]{1,128}/[a-zA-Z]{1,128}');
  });
});

describe('generateId', () => {
  it('makes ids valid under every rule', () => {
    for (const rule of Object.values(ID_RULES)) {
      for (let i = 0; i < 50; i++) expect(isValidId(rule, generateId(rule))).toBe(true);
    }
  });

  it('makes a letter then base36, 12 characters, and differs each time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => generateId(ID_RULES.device)));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]{11}$/);
  });

  it('makes three-segment limit ids', () => {
    expect(generateId(ID_RULES.limit).split('/')).toHaveLength(3);
  });
});

describe('names, property-based', () => {
  const device = new NamePattern('projects/{project}/regions/{region}/devices/{device}', {
    project: ID_RULES.device,
    region: ID_RULES.device,
    device: ID_RULES.device,
  });
  const deviceId = fc.stringMatching(/^[a-z][a-z0-9-]{0,28}[a-z0-9]$/);

  it('format and parse are inverse', () => {
    fc.assert(
      fc.property(deviceId, deviceId, deviceId, (project, region, id) => {
        const name = device.format({ project, region, device: id });
        expect(device.parse(name)).toEqual({ project, region, device: id });
        expect(device.matchesParent(`projects/${project}/regions/-`, name)).toBe(true);
        expect(name.startsWith(device.literalPrefix(`projects/${project}/regions/-`))).toBe(true);
      }),
    );
  });
});
