import { describe, expect, it } from 'vitest';
import { resolveField, toCamelPath } from '../../src/query/index.js';
import { testSchema } from './test-schema.js';

describe('toCamelPath', () => {
  it('turns snake_case and kebab-case segments into lowerCamel', () => {
    expect(toCamelPath('status.device_info.os_version')).toBe('status.deviceInfo.osVersion');
    expect(toCamelPath('status.device-info.os-version')).toBe('status.deviceInfo.osVersion');
    expect(toCamelPath('status.deviceInfo.osVersion')).toBe('status.deviceInfo.osVersion');
    expect(toCamelPath('a_b_c')).toBe('aBC');
  });
});

describe('resolveField', () => {
  it('finds a field by any spelling of its path', () => {
    for (const path of [
      'status.device_info.os_version',
      'status.deviceInfo.osVersion',
      'status.device-info.os-version',
    ]) {
      expect(resolveField(testSchema, path)).toMatchObject({ path: 'status.deviceInfo.osVersion', type: 'string' });
    }
  });

  it('resolves a path below a labels field to one map key of type string, keeping the key as written', () => {
    expect(resolveField(testSchema, 'metadata.labels.env')).toMatchObject({
      path: 'metadata.labels.env',
      type: 'string',
      mapKey: 'env',
      field: { path: 'metadata.labels', type: 'labels' },
    });
    expect(resolveField(testSchema, 'metadata.labels.rollout_wave')?.mapKey).toBe('rollout_wave');
    expect(resolveField(testSchema, 'metadata.labels.app.kubernetes.io/name')?.mapKey).toBe('app.kubernetes.io/name');
  });

  it('returns undefined for unknown paths', () => {
    expect(resolveField(testSchema, 'spec.nope')).toBeUndefined();
    expect(resolveField(testSchema, 'status.deviceInfo')).toBeUndefined();
    expect(resolveField(testSchema, 'metadata.tags.x')).toBeUndefined();
    expect(resolveField(testSchema, 'spec..count')).toBeUndefined();
  });
});
