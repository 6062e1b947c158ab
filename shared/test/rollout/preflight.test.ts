import { describe, expect, it } from 'vitest';
import { preflightWave, WatchedDevices } from '../../src/rollout/index.js';
import type { PublishedVersion } from '../../src/rollout/index.js';
import { device } from './fixtures.js';

const V = '1.1.0';
const published: PublishedVersion[] = [
  { version: V, deviceType: 'deviceTypes/sim', minimumPreviousVersion: '1.0.0' },
  { version: V, deviceType: 'deviceTypes/legacy' },
];

describe('preflightWave', () => {
  it('counts the wave and names what the server would refuse, what is offline and what fails a check', () => {
    const result = preflightWave(
      'canary',
      [
        device({ id: 'ok', running: '1.0.0', type: 'sim' }),
        device({ id: 'targeted', desired: V, running: '1.0.0', type: 'sim' }),
        device({ id: 'other-type', running: '1.0.0', type: 'deviceTypes/pi' }),
        device({ id: 'too-old', running: '0.9.0', type: 'sim' }),
        device({ id: 'retained', running: '1.2.0', type: 'pi', slots: ['1.2.0', V] }),
        device({ id: 'unknown', running: '1.0.0' }),
        device({ id: 'offline', running: '1.0.0', type: 'legacy', online: false }),
        device({ id: 'sick', running: '1.0.0', type: 'sim', health: { web: ['False', 0, 'HTTP 503'] } }),
      ],
      V,
      published,
    );
    const id = (name: string) => name.split('/').pop();
    expect(result).toMatchObject({ wave: 'canary', total: 8, alreadyTargeted: 1, toWrite: 5 });
    expect(result.refused.map((r) => [id(r.name), r.why])).toEqual([
      ['other-type', '1.1.0 is not published for device type pi'],
      ['too-old', '1.1.0 needs at least 1.0.0; the device runs 0.9.0'],
    ]);
    expect(result.offline.map(id)).toEqual(['offline']);
    expect(result.failingHealth.map((f) => [id(f.name), f.why])).toEqual([['sick', 'web (HTTP 503)']]);
    expect(result.unknownType.map(id)).toEqual(['unknown']);
  });
});

describe('WatchedDevices', () => {
  it('holds the collection a stateless watch describes, through a hard reset', () => {
    const a = device({ id: 'a' });
    const b = device({ id: 'b' });
    const watched = new WatchedDevices();
    watched.apply({ deviceChanges: [{ current: { device: a } }], isCurrent: false });
    expect(watched.current).toBe(false);
    watched.apply({ deviceChanges: [{ current: { device: b } }], isCurrent: true, resumeToken: 't1' });
    expect([...watched.devices.keys()].length).toBe(2);
    expect(watched).toMatchObject({ current: true, resumeToken: 't1' });
    // the size message that follows a snapshot is no news: the devices stay current
    watched.apply({ deviceChanges: [], isCurrent: false, snapshotSize: 2 } as Parameters<WatchedDevices['apply']>[0]);
    expect(watched.current).toBe(true);
    // a soft reset: a replay follows, current again at its end
    watched.apply({ isSoftReset: true });
    expect(watched.current).toBe(false);
    watched.apply({ deviceChanges: [], isCurrent: true, resumeToken: 't1' });
    expect(watched.current).toBe(true);
    watched.apply({ deviceChanges: [{ removed: { name: a.name } }], isCurrent: true, resumeToken: 't2' });
    expect([...watched.devices.keys()]).toEqual([b.name]);
    // after a hard reset only what the new snapshot sends remains
    watched.apply({ deviceChanges: [{ current: { device: a } }], isCurrent: true });
    watched.apply({ isHardReset: true });
    watched.apply({ deviceChanges: [{ current: { device: a } }], isCurrent: true, resumeToken: 't9' });
    expect([...watched.devices.keys()]).toEqual([a.name]);
    expect(watched.resumeToken).toBe('t9');
  });
});
