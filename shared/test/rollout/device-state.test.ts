import { describe, expect, it } from 'vitest';
import { assessDevice, healthySince, tallyDevices } from '../../src/rollout/index.js';
import { device, T0 } from './fixtures.js';

const V = '1.1.0';

describe('assessDevice', () => {
  it('tells the five states of spec 000 apart, and why a device failed', () => {
    const cases: [Parameters<typeof device>[0], string, string?][] = [
      [{ id: 'd1', desired: '1.0.0', running: '1.0.0' }, 'notTargeted'],
      [{ id: 'd2', running: '1.0.0' }, 'notTargeted'],
      [{ id: 'd3', desired: V, running: '1.0.0', osReady: ['False', 'Downloading', '40%'] }, 'inFlight'],
      [{ id: 'd4', desired: V, running: V, osReady: ['True', 'Converged'] }, 'done'],
      [
        { id: 'd5', desired: V, running: '1.0.0', osReady: ['False', 'RolledBack', 'slot B did not commit'] },
        'failed',
        'RolledBack: slot B did not commit',
      ],
      [
        { id: 'd6', desired: V, running: '1.0.0', osReady: ['False', 'Failed', 'hash mismatch'] },
        'failed',
        'Failed: hash mismatch',
      ],
      [{ id: 'd7', desired: V, running: '1.0.0', online: false, osReady: ['False', 'Pending'] }, 'offline'],
      // a device rebooting into the version is offline on its way, not offline
      [{ id: 'd8', desired: V, running: '1.0.0', online: false, osReady: ['False', 'Rebooting'] }, 'inFlight'],
      // a rolled-back device is failed, also while it is offline
      [
        { id: 'd9', desired: V, running: '1.0.0', online: false, osReady: ['False', 'RolledBack', 'x'] },
        'failed',
        'RolledBack: x',
      ],
      // booted is not healthy: a check still pending keeps it in flight
      [{ id: 'da', desired: V, running: V, osReady: ['True', 'Converged'], health: { web: ['Unknown'] } }, 'inFlight'],
      [
        { id: 'db', desired: V, running: V, osReady: ['True', 'Converged'], health: { web: ['False', 0, 'HTTP 500'] } },
        'failed',
        'health check failing: web (HTTP 500)',
      ],
    ];
    for (const [facts, state, why] of cases) {
      const assessment = assessDevice(device(facts), V);
      expect(assessment.state, facts.id).toBe(state);
      expect(assessment.why, facts.id).toBe(why);
    }
    expect(assessDevice(device(cases[10]![0]), V).healthRegression).toBe(true);
    expect(assessDevice(device(cases[4]![0]), V).healthRegression).toBeUndefined();
  });

  it('dates health from the latest transition of OSReady and the passing checks', () => {
    const d = device({
      id: 'd1',
      desired: V,
      running: V,
      osReady: ['True', 'Converged', '', 5000],
      health: { a: ['True', 9000], b: ['True', 1000] },
    });
    expect(healthySince(d)).toBe(T0 + 9000);
    expect(healthySince(device({ id: 'd2', desired: V, running: V }))).toBeUndefined();
  });

  it('tallies a wave and lists its failures', () => {
    const tally = tallyDevices(
      [
        device({ id: 'd1', desired: V, running: V, osReady: ['True', 'Converged', '', 3000] }),
        device({ id: 'd2', desired: V, running: '1.0.0', osReady: ['False', 'RolledBack', 'no commit'] }),
        device({ id: 'd3', desired: V, running: '1.0.0', osReady: ['False', 'Installing'] }),
        device({ id: 'd4', desired: V, running: '1.0.0', online: false }),
        device({ id: 'd5', running: '1.0.0' }),
      ],
      V,
    );
    expect(tally).toMatchObject({
      total: 5,
      notTargeted: 1,
      inFlight: 1,
      done: 1,
      failed: 1,
      offline: 1,
      lastHealthyAt: T0 + 3000,
    });
    expect(tally.failures).toEqual([{ name: 'projects/p1/regions/eu/devices/d2', why: 'RolledBack: no commit' }]);
    expect(tally.inFlightNames).toEqual(['projects/p1/regions/eu/devices/d3']);
  });
});
