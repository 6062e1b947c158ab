/**
 * Issue 17 acceptance: devices offline at write time converge when they reconnect (spec 000 "Offline at time of
 * write"); a rollout interrupted with SIGINT (the built CLI as a child process) and run again finishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, milestones, startRolloutBench, until, rolloutCommand } from './rollout-fixture.js';
import type { RolloutBench } from './rollout-fixture.js';

const wave = (name: string): Record<string, string> => ({ [`wave:${name}`]: '' });

describe('a rollout with offline devices', () => {
  let bench: RolloutBench;
  beforeAll(async () => {
    bench = await startRolloutBench('offline', [
      { id: 'c-0', labels: wave('canary') },
      { id: 'e-0', labels: wave('early') },
      { id: 'm-0', labels: wave('main') },
      { id: 'm-1', labels: wave('main'), offline: true },
      { id: 'm-2', labels: wave('main'), offline: true },
    ]);
  }, 120_000);
  afterAll(async () => bench?.dispose());

  it('writes them, promotes without them, and they converge when they reconnect', async () => {
    const result = await bench.cli(rolloutCommand(bench, '1.1.0', '--yes', '-o', 'json'));
    expect(result.code, result.stderr).toBe(0);
    const events = eventsOf(result.stdout);
    expect(events[0]).toMatchObject({
      event: 'preflight',
      waves: [{}, {}, { wave: 'main', offline: [bench.name('m-1'), bench.name('m-2')] }],
    });
    expect(events.find((e) => e['event'] === 'promoted' && e['wave'] === 'main')).toMatchObject({
      counts: { total: 3, done: 1, offline: 2 },
    });
    for (const id of ['m-1', 'm-2']) expect((await bench.device(id)).spec?.osVersion).toBe('1.1.0');

    await bench.fleet.setOnline(bench.name('m-1'), true);
    await bench.fleet.setOnline(bench.name('m-2'), true);
    await until(async () => {
      const versions = await Promise.all(
        ['m-1', 'm-2'].map(async (id) => (await bench.device(id)).status?.deviceInfo?.osVersion),
      );
      return versions.every((v) => v === '1.1.0');
    }, 'the offline devices to converge on 1.1.0');
  }, 120_000);
});

describe('a rollout interrupted with SIGINT', () => {
  let bench: RolloutBench;
  beforeAll(async () => {
    bench = await startRolloutBench('resume', [
      ...['c-0', 'c-1'].map((id) => ({ id, labels: wave('canary') })),
      ...['e-0', 'e-1', 'e-2'].map((id) => ({ id, labels: wave('early') })),
      ...['m-0', 'm-1', 'm-2', 'm-3'].map((id) => ({ id, labels: wave('main') })),
    ]);
  }, 120_000);
  afterAll(async () => bench?.dispose());

  it('stops with status 130, and the same command run again finishes from the records', async () => {
    // the soak is the time SIGINT has to arrive between "written early" and the main wave's write: 10 s, not 2 s,
    // so that a slow moment of a loaded machine in the poll below does not let the first run write main
    const args = rolloutCommand(bench, '1.1.0', '--soak', '10s', '--yes', '-o', 'json');
    const first = bench.startCli(args);
    await until(async () => /"event":"written","wave":"early"/.test(first.output()), 'the early wave to be written');
    first.child.kill('SIGINT');
    const exit = await first.exited;
    expect(exit.code, first.output()).toBe(130);
    expect(first.output()).toMatch(/interrupted: what was written stays written; run the same command again to go on/);
    for (const id of ['m-0', 'm-1']) expect((await bench.device(id)).spec?.osVersion).toBeUndefined();

    const second = await bench.cli(args);
    expect(second.code, second.stderr).toBe(0);
    const steps = milestones(eventsOf(second.stdout));
    expect(steps[0]).toBe('waveSkipped canary');
    expect(steps.slice(-3)).toEqual(['written main', 'promoted main', 'completed']);
    for (const id of ['c-0', 'e-2', 'm-3'])
      expect((await bench.device(id)).status?.deviceInfo?.osVersion).toBe('1.1.0');
  }, 120_000);
});
