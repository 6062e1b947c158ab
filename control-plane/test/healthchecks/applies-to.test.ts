import { describe, expect, it } from 'vitest';
import { appliesTo } from '../../src/healthchecks/applies-to.js';

const check = (name: string, selector?: Record<string, string>) => ({
  name,
  spec: { type: 'TCP' as const, ...(selector === undefined ? {} : { selector: { matchLabels: selector } }) },
});
const device = (name: string, labels: Record<string, string> = {}, healthChecks?: string[]) => ({
  name,
  metadata: { labels },
  spec: healthChecks === undefined ? {} : { healthChecks },
});

describe('which devices a health check applies to', () => {
  const eu = 'projects/p/regions/eu';
  it('selects by every label of matchLabels, within its own project and region', () => {
    const web = check(`${eu}/healthChecks/web`, { role: 'gateway', site: 'berlin' });
    expect(appliesTo(web, device(`${eu}/devices/a`, { role: 'gateway', site: 'berlin', x: 'y' }))).toBe(true);
    expect(appliesTo(web, device(`${eu}/devices/b`, { role: 'gateway' }))).toBe(false);
    expect(appliesTo(web, device('projects/p/regions/us/devices/a', { role: 'gateway', site: 'berlin' }))).toBe(false);
    expect(appliesTo(web, device('projects/q/regions/eu/devices/a', { role: 'gateway', site: 'berlin' }))).toBe(false);
  });

  it('an empty selector selects every device of the region; no selector, only devices naming the check', () => {
    expect(appliesTo(check(`${eu}/healthChecks/all`, {}), device(`${eu}/devices/a`))).toBe(true);
    const named = check(`${eu}/healthChecks/disk`);
    expect(appliesTo(named, device(`${eu}/devices/a`))).toBe(false);
    expect(appliesTo(named, device(`${eu}/devices/a`, {}, ['disk']))).toBe(true);
    expect(appliesTo(named, device(`${eu}/devices/a`, {}, [`${eu}/healthChecks/disk`]))).toBe(true);
    expect(appliesTo(named, device('projects/p/regions/us/devices/a', {}, [`${eu}/healthChecks/disk`]))).toBe(false);
  });
});
