import { describe, expect, it } from 'vitest';
import { planWaves, spreadValueOf } from '../../src/rollout/index.js';
import type { RolloutDevice, WavePlanOptions } from '../../src/rollout/index.js';
import { device } from './fixtures.js';

const SITES = ['berlin', 'oslo', 'lyon', 'porto', 'turin'];
const TYPES = ['pi', 'nuc'];

/** 200 devices over 5 sites (unevenly: berlin holds half) and 2 types; every third one offline. */
function fleet(): RolloutDevice[] {
  return Array.from({ length: 200 }, (_, i) =>
    device({
      id: `d${i}`,
      labels: { site: i < 100 ? 'berlin' : SITES[1 + (i % 4)]! },
      type: TYPES[i % 2],
      online: i % 3 !== 0,
    }),
  );
}

const options: WavePlanOptions = {
  canary: 5,
  earlyPercent: 10,
  spreadBy: ['site', 'deviceType'],
  seed: 's1',
  relabel: false,
};

/** The fleet with the labels a plan writes. */
function labelled(devices: RolloutDevice[], plan: ReturnType<typeof planWaves>): RolloutDevice[] {
  const wave = new Map(plan.changes.map((c) => [c.name, c.wave]));
  return devices.map((d) => {
    const w = wave.get(d.name);
    if (w === undefined) return d;
    const labels = Object.fromEntries(Object.entries(d.metadata?.labels ?? {}).filter(([k]) => !k.startsWith('wave')));
    return { ...d, metadata: { labels: { ...labels, [`wave:${w}`]: '' } } };
  });
}

describe('planWaves', () => {
  it('takes the canary from online devices and spreads the early wave across every site and type', () => {
    const devices = fleet();
    const plan = planWaves(devices, options);
    const byWave = (wave: string) =>
      plan.assignments.filter((a) => a.wave === wave).map((a) => devices.find((d) => d.name === a.name)!);
    expect(byWave('canary')).toHaveLength(5);
    expect(byWave('canary').every((d) => d.status?.connectionStatus === 'CONNECTED')).toBe(true);
    const early = byWave('early');
    expect(early).toHaveLength(20);
    const perSite = new Map<string, number>();
    for (const d of early) perSite.set(spreadValueOf(d, 'site'), (perSite.get(spreadValueOf(d, 'site')) ?? 0) + 1);
    expect([...perSite.keys()].sort()).toEqual([...SITES].sort());
    // evenly: no site has more than one device above another
    expect(Math.max(...perSite.values()) - Math.min(...perSite.values())).toBeLessThanOrEqual(1);
    expect(new Set(early.map((d) => spreadValueOf(d, 'deviceType')))).toEqual(new Set(TYPES));
    expect(byWave('main')).toHaveLength(175);
    expect(plan.spread['site']!['oslo']).toMatchObject({ early: 4 });
  });

  it('is deterministic for a seed and differs for another', () => {
    const names = (seed: string) =>
      planWaves(fleet(), { ...options, seed }).assignments.filter((a) => a.wave !== 'main');
    expect(names('s1')).toEqual(names('s1'));
    expect(names('s1')).not.toEqual(names('s2'));
  });

  it('is idempotent, and places new devices where the waves lack them', () => {
    const devices = fleet();
    const first = labelled(devices, planWaves(devices, options));
    expect(planWaves(first, options).changes).toEqual([]);
    const grown = [
      ...first,
      ...Array.from({ length: 20 }, (_, i) => device({ id: `n${i}`, labels: { site: 'oslo' }, type: 'pi' })),
    ];
    const plan = planWaves(grown, options);
    // 220 devices: the early wave grows from 20 to 22, the canary is full
    expect(plan.changes.map((c) => c.wave).sort()).toEqual([...Array(2).fill('early'), ...Array(18).fill('main')]);
  });

  it('leaves devices with a wave label alone unless relabelled', () => {
    const devices = fleet().map((d, i) => (i < 3 ? { ...d, metadata: { labels: { 'wave:pilot': '' } } } : d));
    const plan = planWaves(devices, options);
    expect(plan.untouched.map((u) => u.wave)).toEqual(['pilot', 'pilot', 'pilot']);
    expect(plan.assignments).toHaveLength(197);
    const relabelled = planWaves(devices, { ...options, relabel: true });
    expect(relabelled.untouched).toEqual([]);
    expect(relabelled.assignments).toHaveLength(200);
  });

  it('says by how many the canary falls short when too few devices are online', () => {
    const devices = fleet().map((d) => ({ ...d, status: { ...d.status, connectionStatus: 'DISCONNECTED' } }));
    const plan = planWaves(devices, options);
    expect(plan.canaryShortBy).toBe(5);
    expect(plan.assignments.filter((a) => a.wave === 'canary')).toEqual([]);
  });
});
