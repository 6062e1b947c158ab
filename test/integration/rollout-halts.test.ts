/**
 * Issue 17 acceptance: injected boot failures above the threshold halt the rollout with later waves untouched; a
 * health regression after the upgrade halts it; the devices that rolled back are found with one filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { eventsOf, milestones, startRolloutBench, rolloutCommand, until } from './rollout-fixture.js';
import type { RolloutBench } from './rollout-fixture.js';

const wave = (name: string): Record<string, string> => ({ [`wave:${name}`]: '' });

describe('a rollout halts', () => {
  let bench: RolloutBench;
  beforeAll(async () => {
    bench = await startRolloutBench('halts', [
      ...['c-0', 'c-1'].map((id) => ({ id, labels: wave('canary') })),
      { id: 'e-0', labels: wave('early') },
      { id: 'e-1', labels: wave('early'), failBoot: true },
      { id: 'e-2', labels: wave('early'), failBoot: true },
      { id: 'e-3', labels: wave('early') },
      ...['m-0', 'm-1', 'm-2', 'm-3'].map((id) => ({ id, labels: wave('main') })),
    ]);
  }, 120_000);
  afterAll(async () => bench?.dispose());

  it('when boot failures pass --max-failures, naming them, and leaves later waves untouched', async () => {
    const result = await bench.cli(rolloutCommand(bench, '1.1.0', '--max-failures', '1', '--yes', '-o', 'json'));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /rollout halted in wave early: 2 of 4 device\(s\) failed, more than --max-failures 1 allows \(1\)/,
    );
    const events = eventsOf(result.stdout);
    expect(milestones(events)).toEqual([
      'waveStarted canary',
      'written canary',
      'promoted canary',
      'waveStarted early',
      'written early',
      'halted early',
    ]);
    const halted = events.find((e) => e['event'] === 'halted') as { failures: { name: string; why: string }[] };
    expect(halted.failures.map((f) => f.name).sort()).toEqual([bench.name('e-1'), bench.name('e-2')]);
    for (const failure of halted.failures) expect(failure.why).toMatch(/^RolledBack: /);
    for (const id of ['m-0', 'm-1', 'm-2', 'm-3']) expect((await bench.device(id)).spec?.osVersion, id).toBeUndefined();

    // one filter lists the devices that rolled back
    const failed = await bench.server.admin.list<Device>(bench.parent, 'devices', {
      filter: 'status.osReadyReason IN ("RolledBack", "Failed")',
      view: 'NAME',
    });
    expect(failed.devices?.map((d) => d.name).sort()).toEqual([bench.name('e-1'), bench.name('e-2')]);
    // the rollout halts at its second failure, whether or not the wave's two healthy devices already run 1.1.0
    await until(async () => {
      const running = await Promise.all(['e-0', 'e-3'].map(async (id) => (await bench.device(id)).status?.deviceInfo));
      return running.every((info) => info?.osVersion === '1.1.0');
    }, 'e-0 and e-3 to run 1.1.0');
    const status = await bench.cli([
      'devices',
      'rollout-status',
      '--parent',
      bench.parent,
      '--version',
      '1.1.0',
      '--waves',
      'early',
      '-o',
      'json',
    ]);
    expect(JSON.parse(status.stdout)).toEqual([
      { wave: 'early', version: '1.1.0', notTargeted: 0, inFlight: 2, done: 2, failed: 2, offline: 0, pending: 0 },
    ]);

    // the same command halts again: the failures are in the records
    const again = await bench.cli(rolloutCommand(bench, '1.1.0', '--max-failures', '1', '--yes'));
    expect(again.code).toBe(3);
    expect(again.stdout).toMatch(/wave canary: already done/);
    expect(again.stdout).toMatch(/wave early: HALTED/);
    expect(again.stdout).toMatch(/RolledBack: /);
  }, 120_000);
});

describe('a rollout halts on a health regression', () => {
  let bench: RolloutBench;
  beforeAll(async () => {
    bench = await startRolloutBench('health', [
      { id: 'c-0', labels: wave('canary') },
      { id: 'c-1', labels: wave('canary'), failHealthAfterUpgrade: true },
      { id: 'e-0', labels: wave('early') },
      { id: 'm-0', labels: wave('main') },
    ]);
  }, 120_000);
  afterAll(async () => bench?.dispose());

  it('when a device that reached the version fails a health check within the soak time', async () => {
    const result = await bench.cli(rolloutCommand(bench, '1.1.0', '--soak', '5s', '--max-failures', '50%', '--yes'));
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toMatch(
      /wave canary: HALTED: 1 device\(s\) reached the version and then failed a health check/,
    );
    expect(result.stdout).toContain(`${bench.name('c-1')}: health check failing: sim`);
    expect(result.stdout).toMatch(/later waves were left untouched/);
    expect((await bench.device('c-1')).status?.deviceInfo?.osVersion).toBe('1.1.0');
    expect((await bench.device('e-0')).spec?.osVersion).toBeUndefined();
    expect((await bench.device('m-0')).spec?.osVersion).toBeUndefined();
  }, 120_000);
});
