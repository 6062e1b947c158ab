import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../src/errors/api-error.js';
import { ID_RULES, NamePattern, idProblem, nameProblemAmong, parentProblemAmong } from '../../src/names/index.js';

const DEVICE_RULE_TEXT = '[a-z][a-z0-9-]{0,28}[a-z0-9]';

const device = new NamePattern('projects/{project}/regions/{region}/devices/{device}', {
  project: ID_RULES.device,
  region: ID_RULES.device,
  device: ID_RULES.device,
});
const limit = new NamePattern('projects/{project}/limits/{limit}', { project: ID_RULES.device, limit: ID_RULES.limit });
const osVersion = new NamePattern('osVersions/{osVersion}', { osVersion: ID_RULES.generic });
const planAssignments = [
  new NamePattern('services/{service}/planAssignments/{plan_assignment}', {
    service: ID_RULES.service,
    plan_assignment: ID_RULES.generic,
  }),
  new NamePattern('projects/{project}/planAssignments/{plan_assignment}', {
    project: ID_RULES.device,
    plan_assignment: ID_RULES.generic,
  }),
];

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('idProblem', () => {
  it('names the variable, the id and the rule it breaks', () => {
    expect(idProblem('project', ID_RULES.device, 'p')).toBe(`project id "p" must match ${DEVICE_RULE_TEXT}`);
    expect(idProblem('project', ID_RULES.device, 'acme')).toBeNull();
  });

  it('says a wildcard is no id rather than claiming it breaks a pattern it may match', () => {
    expect(idProblem('osVersion', ID_RULES.generic, '-')).toBe(
      'osVersion id "-" is the wildcard, which stands for every value only in a parent',
    );
  });

  it('names the wrong segment of a limit id', () => {
    expect(idProblem('limit', ID_RULES.limit, 'e_u/devices.outpost/devices')).toBe(
      'limit id "e_u/devices.outpost/devices" must be region/service/kind: region "e_u" must match [a-zA-Z0-9-]{1,128}',
    );
    expect(idProblem('limit', ID_RULES.limit, 'eu/devices outpost/devices')).toMatch(
      /: service "devices outpost" must match/,
    );
    expect(idProblem('limit', ID_RULES.limit, 'eu/devices.outpost/dev1ces')).toMatch(/: kind "dev1ces" must match/);
    expect(idProblem('limit', ID_RULES.limit, 'eu/devices.outpost')).toBe(
      'limit id "eu/devices.outpost" must be region/service/kind, matching [a-zA-Z0-9-]{1,128}/[a-zA-Z0-9-.]{1,128}/[a-zA-Z]{1,128}',
    );
    expect(idProblem('limit', ID_RULES.limit, 'eu/devices.outpost/devices')).toBeNull();
  });
});

describe('NamePattern.problemWithName', () => {
  it('names the short project id of a device name (the README once used projects/p)', () => {
    expect(device.problemWithName('projects/p/regions/eu/devices/gw-1')).toEqual({
      shapeFits: true,
      message: `project id "p" must match ${DEVICE_RULE_TEXT}`,
    });
    expect(device.problemWithName('projects/acme/regions/eu/devices/g')?.message).toBe(
      `device id "g" must match ${DEVICE_RULE_TEXT}`,
    );
    expect(device.problemWithName('projects/acme/regions/eu/devices/gw-1')).toBeNull();
  });

  it('refuses a wildcard in a full name', () => {
    expect(device.problemWithName('projects/acme/regions/-/devices/gw-1')?.message).toMatch(
      /^region id "-" is the wildcard/,
    );
  });

  it('says what the name must look like when its literals or length do not fit', () => {
    for (const name of [
      'projects/acme/regions/eu/devices/gw-1/extra',
      'projects/acme/zones/eu/devices/gw-1',
      'projects/acme/regions/eu',
      '',
    ]) {
      expect(device.problemWithName(name), name).toEqual({
        shapeFits: false,
        message: 'must look like projects/{project}/regions/{region}/devices/{device}',
      });
    }
  });

  it('explains a limit name by the segment at fault, not as a project name', () => {
    expect(limit.problemWithName('projects/p/limits/eu/devices.outpost/devices')?.message).toBe(
      `project id "p" must match ${DEVICE_RULE_TEXT}`,
    );
    expect(limit.problemWithName('projects/acme/limits/eu/devices.outpost/dev1ces')).toEqual({
      shapeFits: true,
      message: expect.stringContaining('kind "dev1ces" must match [a-zA-Z]{1,128}') as string,
    });
    // a segment missing from or added to the id of several segments is that id's problem
    expect(limit.problemWithName('projects/acme/limits/eu/devices.outpost')?.shapeFits).toBe(true);
    expect(limit.problemWithName('projects/acme/limits/eu/devices.outpost/devices/x')?.message).toMatch(
      /^limit id "eu\/devices.outpost\/devices\/x" must be region\/service\/kind/,
    );
  });

  it('agrees with parse on every name', () => {
    const segment = fc.constantFrom('projects', 'regions', 'devices', 'limits', 'acme', 'p', 'eu', '-', 'A', '');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 8 }), (segments) => {
        const name = segments.join('/');
        for (const pattern of [device, limit, osVersion]) {
          expect(pattern.problemWithName(name) === null, name).toBe(pattern.parse(name) !== null);
        }
      }),
    );
  });
});

describe('NamePattern.problemWithParent', () => {
  it('accepts wildcards and names the id at fault', () => {
    expect(device.problemWithParent('projects/acme/regions/-')).toBeNull();
    expect(device.problemWithParent('projects/-/regions/-')).toBeNull();
    expect(device.problemWithParent('projects/p/regions/-')).toEqual({
      shapeFits: true,
      message: `project id "p" must match ${DEVICE_RULE_TEXT}`,
    });
    expect(device.problemWithParent('projects/acme')).toEqual({
      shapeFits: false,
      message: 'must look like projects/{project}/regions/{region}',
    });
    expect(osVersion.problemWithParent('projects/acme')?.message).toBe('must be empty: this collection has no parent');
    expect(osVersion.problemWithParent('')).toBeNull();
  });

  it('gives its reason when a child name cannot be made', () => {
    expect(messageOf(() => device.nameInParent('projects/p/regions/eu', 'gw-1'))).toBe(
      `invalid parent "projects/p/regions/eu": project id "p" must match ${DEVICE_RULE_TEXT}`,
    );
    expect(messageOf(() => device.nameInParent('projects/acme/regions/eu', 'g'))).toBe(
      `device id "g" must match ${DEVICE_RULE_TEXT}`,
    );
  });
});

describe('problems among the patterns of one kind', () => {
  it('explains by the pattern whose shape the name has', () => {
    expect(nameProblemAmong(planAssignments, 'projects/p/planAssignments/x')?.message).toBe(
      `project id "p" must match ${DEVICE_RULE_TEXT}`,
    );
    expect(nameProblemAmong(planAssignments, 'projects/acme/planAssignments/x')).toBeNull();
    expect(parentProblemAmong(planAssignments, 'services/Devices')?.message).toMatch(
      /^service id "Devices" must match/,
    );
  });

  it('lists every shape when the name has none of them', () => {
    expect(nameProblemAmong(planAssignments, 'folders/f1/planAssignments/x')).toEqual({
      shapeFits: false,
      message:
        'must look like services/{service}/planAssignments/{plan_assignment} or projects/{project}/planAssignments/{plan_assignment}',
    });
    expect(parentProblemAmong(planAssignments, 'folders/f1')?.message).toBe(
      'must look like services/{service} or projects/{project}',
    );
  });
});
