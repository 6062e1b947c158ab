import { describe, expect, it } from 'vitest';
import { checkSettings, initialCheckState, nextCheckState } from '../../src/health/check-state.js';
import type { CheckResult, CheckState } from '../../src/health/check-state.js';

const pass = (message = 'ok'): CheckResult => ({ healthy: true, reason: 'Passing', message });
const fail = (message = 'down', reason: 'Failing' | 'Timeout' = 'Failing'): CheckResult => ({
  healthy: false,
  reason,
  message,
});

function fold(results: CheckResult[], successThreshold: number, failureThreshold: number): CheckState[] {
  const thresholds = { successThreshold, failureThreshold };
  const states: CheckState[] = [];
  let state = initialCheckState(thresholds);
  for (const result of results) states.push((state = nextCheckState(state, result, thresholds)));
  return states;
}

const statuses = (states: CheckState[]): string[] => states.map((s) => `${s.condition.status}/${s.condition.reason}`);

describe('health check thresholds', () => {
  it('starts Unknown/Pending', () => {
    expect(initialCheckState({ successThreshold: 2, failureThreshold: 3 }).condition).toEqual({
      status: 'Unknown',
      reason: 'Pending',
      message: 'waiting for 2 passing or 3 failing results in a row',
    });
  });

  it('flips to True only after successThreshold passing results in a row, and to False after failureThreshold failing ones', () => {
    const states = fold([pass(), pass(), fail(), fail(), pass(), fail(), fail(), fail(), pass(), pass()], 2, 3);
    expect(statuses(states)).toEqual([
      'Unknown/Pending',
      'True/Passing',
      'True/Passing',
      'True/Passing',
      'True/Passing', // a pass resets the failures
      'True/Passing',
      'True/Passing',
      'False/Failing', // third failure in a row
      'False/Failing',
      'True/Passing', // second pass in a row
    ]);
  });

  it('a steady condition keeps its first message; a change of reason while failing is a change', () => {
    const states = fold(
      [fail('refused'), fail('HTTP 500'), fail('slow', 'Timeout'), pass('fine'), pass('also fine')],
      1,
      1,
    );
    expect(states.map((s) => s.condition)).toEqual([
      { status: 'False', reason: 'Failing', message: 'refused' },
      { status: 'False', reason: 'Failing', message: 'refused' },
      { status: 'False', reason: 'Timeout', message: 'slow' },
      { status: 'True', reason: 'Passing', message: 'fine' },
      { status: 'True', reason: 'Passing', message: 'fine' },
    ]);
  });

  it('fills in the defaults: 10 s interval, 5 s timeout (never above the interval), thresholds 1 and 3', () => {
    expect(checkSettings({ type: 'TCP' })).toEqual({
      intervalMs: 10_000,
      timeoutMs: 5_000,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(checkSettings({ type: 'TCP', intervalSeconds: 2 }).timeoutMs).toBe(2_000);
  });
});
