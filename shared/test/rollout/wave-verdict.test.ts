import { describe, expect, it } from 'vitest';
import {
  allowedFailures,
  defaultFailureBudget,
  judgeWave,
  parseFailureBudget,
  tallyDevices,
} from '../../src/rollout/index.js';
import type { RolloutDevice, WaveJudgement } from '../../src/rollout/index.js';
import { device, T0 } from './fixtures.js';

const V = '1.1.0';
const done = (id: string, sinceMs = 0): RolloutDevice =>
  device({ id, desired: V, running: V, osReady: ['True', 'Converged', '', sinceMs], health: { sim: ['True', 0] } });
const rolledBack = (id: string): RolloutDevice =>
  device({ id, desired: V, running: '1.0.0', osReady: ['False', 'RolledBack', 'did not commit'] });

const judging = (devices: RolloutDevice[], more: Partial<WaveJudgement> = {}): WaveJudgement => ({
  tally: tallyDevices(devices, V),
  refused: [],
  budget: { kind: 'count', count: 0 },
  soakMs: 0,
  now: T0 + 60_000,
  ...more,
});

describe('failure budgets', () => {
  it('parse counts and percentages and refuse anything else', () => {
    expect(parseFailureBudget('3')).toEqual({ kind: 'count', count: 3 });
    expect(parseFailureBudget('10%')).toEqual({ kind: 'percent', percent: 10 });
    expect(parseFailureBudget('2.5%')).toEqual({ kind: 'percent', percent: 2.5 });
    for (const bad of ['', '-1', '1.5', '101%', 'ten', '10 %x'])
      expect(() => parseFailureBudget(bad)).toThrow(/failure|100%/);
  });

  it('default to none in the canary and 10 % later', () => {
    expect(allowedFailures(defaultFailureBudget(0), 50)).toBe(0);
    expect(allowedFailures(defaultFailureBudget(1), 10)).toBe(1);
    expect(allowedFailures(defaultFailureBudget(2), 9)).toBe(0);
    expect(allowedFailures(defaultFailureBudget(2), 10_000)).toBe(1000);
  });
});

describe('judgeWave', () => {
  it('promotes when every online device reports the version, counting offline devices and failures in budget', () => {
    const offline = device({ id: 'off', desired: V, running: '1.0.0', online: false, osReady: ['False', 'Pending'] });
    expect(judgeWave(judging([done('a'), done('b'), offline]))).toEqual({ kind: 'promote' });
    expect(judgeWave(judging([done('a'), rolledBack('b')], { budget: { kind: 'count', count: 1 } }))).toEqual({
      kind: 'promote',
    });
  });

  it('waits for devices not yet written or on their way', () => {
    const unwritten = device({ id: 'u', running: '1.0.0' });
    const onTheWay = device({ id: 'w', desired: V, running: '1.0.0', osReady: ['False', 'Downloading'] });
    expect(judgeWave(judging([done('a'), unwritten])).kind).toBe('wait');
    expect(judgeWave(judging([done('a'), onTheWay])).kind).toBe('wait');
  });

  it('counts a refused write as a failure, not as a device still to write', () => {
    const refusedDevice = device({ id: 'r', running: '1.0.0' });
    const refused = [{ name: refusedDevice.name, why: 'write refused: not published' }];
    const j = judging([done('a'), refusedDevice], { refused, budget: { kind: 'count', count: 1 } });
    expect(judgeWave(j)).toEqual({ kind: 'promote' });
    expect(judgeWave({ ...j, budget: { kind: 'count', count: 0 } })).toMatchObject({ kind: 'halt', failures: refused });
  });

  it('halts when failures pass the budget, naming them and why', () => {
    const verdict = judgeWave(
      judging([done('a'), rolledBack('b'), rolledBack('c')], { budget: { kind: 'percent', percent: 50 } }),
    );
    expect(verdict).toMatchObject({
      kind: 'halt',
      reason: expect.stringMatching(/2 of 3 .*--max-failures 50% allows \(1\)/),
    });
    expect(verdict.kind === 'halt' && verdict.failures.map((f) => f.why)).toEqual([
      'RolledBack: did not commit',
      'RolledBack: did not commit',
    ]);
  });

  it('halts on a health regression whatever the budget', () => {
    const regressed = device({
      id: 'h',
      desired: V,
      running: V,
      osReady: ['True', 'Converged'],
      health: { sim: ['False', 5, 'down'] },
    });
    const verdict = judgeWave(judging([done('a'), regressed], { budget: { kind: 'count', count: 5 } }));
    expect(verdict).toMatchObject({ kind: 'halt', reason: expect.stringMatching(/failed a health check/) });
  });

  it('waits out the soak from the moment the last device became healthy', () => {
    const devices = [done('a', 10_000), done('b', 50_000)];
    expect(judgeWave(judging(devices, { soakMs: 30_000, now: T0 + 60_000 }))).toEqual({
      kind: 'wait',
      until: T0 + 80_000,
    });
    expect(judgeWave(judging(devices, { soakMs: 30_000, now: T0 + 80_000 }))).toEqual({ kind: 'promote' });
  });

  it('halts a wave that outlives its timeout, naming the devices still on their way', () => {
    const stuck = device({ id: 's', desired: V, running: '1.0.0', osReady: ['False', 'Verifying'] });
    const j = judging([done('a'), stuck], { startedAt: T0, timeoutMs: 120_000 });
    expect(judgeWave({ ...j, now: T0 + 60_000 })).toEqual({ kind: 'wait', until: T0 + 120_000 });
    expect(judgeWave({ ...j, now: T0 + 120_000 })).toMatchObject({
      kind: 'halt',
      reason: expect.stringMatching(/--wave-timeout 2m0s|--wave-timeout 2m/),
      failures: [{ name: stuck.name, why: 'still on its way (timed out)' }],
    });
  });
});
