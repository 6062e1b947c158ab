import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { deriveColumns, formatOutput, headerOf } from '../../src/cli/output.js';

const DEVICES = [
  { name: 'projects/p/regions/r/devices/alpha', displayName: 'Alpha', spec: { osVersion: '1.2.0' }, tags: ['a', 'b'] },
  { name: 'projects/p/regions/r/devices/b', spec: { osVersion: '1.10.0' }, online: true },
];

describe('formatOutput', () => {
  it('prints pretty JSON', () => {
    expect(formatOutput({ a: 1, b: [true] }, 'json')).toBe('{\n  "a": 1,\n  "b": [\n    true\n  ]\n}\n');
  });

  it('prints YAML that reads back to the same value', () => {
    const text = formatOutput(DEVICES, 'yaml');
    expect(text).toContain('- name: projects/p/regions/r/devices/alpha\n');
    expect(parseYaml(text)).toEqual(DEVICES);
  });

  it('aligns given columns under upper-case headers', () => {
    const text = formatOutput(DEVICES, 'table', ['name', 'spec.osVersion', { header: 'LABEL', path: 'displayName' }]);
    expect(text).toBe(
      [
        'NAME                                 SPEC.OS_VERSION   LABEL',
        'projects/p/regions/r/devices/alpha   1.2.0             Alpha',
        'projects/p/regions/r/devices/b       1.10.0',
        '',
      ].join('\n'),
    );
  });

  it('derives columns from the scalar members of the rows', () => {
    expect(deriveColumns(DEVICES)).toEqual(['name', 'displayName', 'tags', 'online']);
    expect(formatOutput(DEVICES, 'table')).toBe(
      [
        'NAME                                 DISPLAY_NAME   TAGS   ONLINE',
        'projects/p/regions/r/devices/alpha   Alpha          a,b',
        'projects/p/regions/r/devices/b                             true',
        '',
      ].join('\n'),
    );
  });

  it('prints only the header for an empty list', () => {
    expect(formatOutput([], 'table', ['name', 'displayName'])).toBe('NAME   DISPLAY_NAME\n');
    expect(formatOutput([], 'table')).toBe('NAME\n');
  });

  it('prints one object as aligned field lines, nested paths dotted', () => {
    const text = formatOutput(
      { name: 'apiKeys/k', grants: [{ permission: '*', scope: '*' }], metadata: { labels: {} }, note: 'two\nlines' },
      'table',
    );
    expect(text).toBe(
      [
        'name:                   apiKeys/k',
        'grants[0].permission:   *',
        'grants[0].scope:        *',
        'metadata.labels:        {}',
        'note:                   two\\nlines',
        '',
      ].join('\n'),
    );
  });

  it('renders nested values of a column as compact JSON', () => {
    expect(formatOutput([{ spec: { a: 1 } }], 'table', ['spec'])).toBe('SPEC\n{"a":1}\n');
  });

  it('leaves out columns without a value in any row, but shows every header of an empty list', () => {
    expect(formatOutput([{ name: 'a' }, { name: 'b', x: '' }], 'table', ['name', 'x', 'y'])).toBe('NAME\na\nb\n');
    expect(formatOutput([{ name: 'a', n: 0 }], 'table', ['name', 'n'])).toBe('NAME   N\na      0\n');
  });

  it('puts name first in the field lines of one resource', () => {
    expect(formatOutput({ spec: { v: '1' }, name: 'things/t' }, 'table')).toBe('name:     things/t\nspec.v:   1\n');
  });

  it('shows the display words of a path in tables only', () => {
    const words = { 'status.state': { ON: 'Online' } };
    expect(
      formatOutput([{ status: { state: 'ON' } }, { status: { state: 'X' } }], 'table', ['status.state'], words),
    ).toBe('STATUS.STATE\nOnline\nX\n');
    expect(formatOutput({ status: { state: 'ON' } }, 'table', undefined, words)).toBe('status.state:   Online\n');
    expect(formatOutput({ status: { state: 'ON' } }, 'json', undefined, words)).toContain('"state": "ON"');
  });

  it('writes conditions as type status/reason: message', () => {
    const conditions = [
      { type: 'OSReady', status: 'False', reason: 'Downloading', message: 'downloading 1.1.0: 40%' },
      { type: 'Healthy/web', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ];
    expect(formatOutput([{ conditions }], 'table', ['conditions'])).toBe(
      'CONDITIONS\nOSReady False/Downloading: downloading 1.1.0: 40%; Healthy/web True\n',
    );
  });
});

describe('headerOf', () => {
  it('upper-snakes each path segment', () => {
    expect(headerOf('displayName')).toBe('DISPLAY_NAME');
    expect(headerOf('status.deviceInfo.osVersion')).toBe('STATUS.DEVICE_INFO.OS_VERSION');
    expect(headerOf('name')).toBe('NAME');
  });
});
