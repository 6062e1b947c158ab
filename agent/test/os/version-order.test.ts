import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/os/version-order.js';

describe('compareVersions (semantic version precedence)', () => {
  it('orders the example chain of semver.org §11, each below the next', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.9.0',
      '1.10.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i < chain.length; i++) {
      for (let j = 0; j < chain.length; j++) {
        expect(Math.sign(compareVersions(chain[i]!, chain[j]!)!), `${chain[i]} vs ${chain[j]}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata and compares numbers beyond 2^53 exactly', () => {
    expect(compareVersions('1.2.0+build.7', '1.2.0')).toBe(0);
    expect(compareVersions('1.2.9007199254740993', '1.2.9007199254740992')).toBe(1);
  });

  it('is undefined for anything that is not a semantic version', () => {
    for (const bad of ['1.2', '01.2.0', 'v1.2.0', '1.2.0-', '1.2.0-a..b', 'latest', '']) {
      expect(compareVersions(bad, '1.0.0'), bad).toBeUndefined();
      expect(compareVersions('1.0.0', bad), bad).toBeUndefined();
    }
  });
});
