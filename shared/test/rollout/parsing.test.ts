import { describe, expect, it } from 'vitest';
import { deviceDefinition, evaluateFilter, parseFilter } from '../../src/index.js';
import {
  compareVersions,
  formatDuration,
  labelsForWave,
  parseRolloutDuration,
  parseWaveNames,
  waveFilter,
  waveOf,
  wavesFilter,
} from '../../src/rollout/index.js';
import { device } from './fixtures.js';

describe('durations', () => {
  it('read 60s, 10m, 1h and combinations', () => {
    expect(parseRolloutDuration('60s')).toBe(60_000);
    expect(parseRolloutDuration('10m')).toBe(600_000);
    expect(parseRolloutDuration('1h')).toBe(3_600_000);
    expect(parseRolloutDuration('1h30m')).toBe(5_400_000);
    expect(parseRolloutDuration('0s')).toBe(0);
    for (const bad of ['', '60', 'ten minutes', '5 m', '-1s'])
      expect(() => parseRolloutDuration(bad)).toThrow(/not a duration/);
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(2500)).toBe('2.5s');
    expect(formatDuration(3_600_000)).toBe('1h');
  });
});

describe('versions', () => {
  it('compare as semver', () => {
    expect(compareVersions('1.2.0', '1.10.0')).toBe(-1);
    expect(compareVersions('2.0.0', '2.0.0-rc.1')).toBe(1);
    expect(compareVersions('1.0.0-alpha.2', '1.0.0-alpha.10')).toBe(-1);
    expect(compareVersions('1.0.0+build', '1.0.0')).toBe(0);
    expect(compareVersions('one', '1.0.0')).toBeUndefined();
  });
});

describe('wave labels', () => {
  it('name waves in order, refusing bad and repeated names', () => {
    expect(parseWaveNames('canary,early,main')).toEqual(['canary', 'early', 'main']);
    expect(() => parseWaveNames('canary,,main')).toThrow(/wave name ""/);
    expect(() => parseWaveNames('canary,Canary')).toThrow(/lowercase/);
    expect(() => parseWaveNames('a,a')).toThrow(/named twice/);
  });

  it('select a wave with the filter of spec 000, as the server evaluates it', () => {
    const schema = deviceDefinition.filterSchema;
    const canary = device({ id: 'c1', labels: { 'wave:canary': '', site: 'berlin' } });
    const legacy = device({ id: 'c2', labels: { wave: 'canary' } });
    const main = device({ id: 'm1', labels: { 'wave:main': '' } });
    const none = device({ id: 'n1', labels: { site: 'berlin' } });
    const matches = (filter: string) =>
      [canary, legacy, main, none]
        .filter((d) => evaluateFilter(parseFilter(filter, schema), d))
        .map((d) => d.name.split('/').pop());
    expect(waveFilter('canary')).toBe('metadata.labels CONTAINS "wave:canary"');
    expect(matches(waveFilter('canary'))).toEqual(['c1', 'c2']);
    expect(matches(wavesFilter(['canary', 'early'], undefined))).toEqual(['c1', 'c2']);
    expect(matches(wavesFilter(['canary', 'main'], 'metadata.labels.site = "berlin"'))).toEqual(['c1']);
    expect(waveOf(main, ['canary', 'early', 'main'])).toBe('main');
    expect(waveOf(none, ['canary', 'early', 'main'])).toBeUndefined();
  });

  it('replace every wave label of a device by one, keeping its other labels', () => {
    const d = device({ id: 'd1', labels: { 'wave:early': '', wave: 'canary', site: 'oslo' } });
    expect(labelsForWave(d, 'main')).toEqual({ site: 'oslo', 'wave:main': '' });
  });
});
