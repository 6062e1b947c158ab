import { describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig } from '../../src/server/config.js';

describe('--metrics-retention-days', () => {
  it('comes from the flag or OUTPOST_METRICS_RETENTION_DAYS (the flag wins); absent means the default', () => {
    expect(loadServerConfig([], {}).metricsRetentionDays).toBeUndefined();
    expect(loadServerConfig([], { OUTPOST_METRICS_RETENTION_DAYS: '7' }).metricsRetentionDays).toBe(7);
    expect(
      loadServerConfig(['--metrics-retention-days', '90'], { OUTPOST_METRICS_RETENTION_DAYS: '7' })
        .metricsRetentionDays,
    ).toBe(90);
  });

  it('refuses what is not a whole number of days from 1 to 3650', () => {
    expect(() => loadServerConfig(['--metrics-retention-days', '0'], {})).toThrow(ConfigError);
    expect(() => loadServerConfig([], { OUTPOST_METRICS_RETENTION_DAYS: 'a week' })).toThrow(
      /OUTPOST_METRICS_RETENTION_DAYS/,
    );
  });
});
