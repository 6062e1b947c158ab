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
});

describe('headerOf', () => {
  it('upper-snakes each path segment', () => {
    expect(headerOf('displayName')).toBe('DISPLAY_NAME');
    expect(headerOf('status.deviceInfo.osVersion')).toBe('STATUS.DEVICE_INFO.OS_VERSION');
    expect(headerOf('name')).toBe('NAME');
  });
});
