import { allowedFailures, describeBudget } from './failure-budget.js';
import type { FailureBudget } from './failure-budget.js';
import { formatDuration } from './duration.js';
import type { DeviceFailure, WaveTally } from './wave-tally.js';

export type WaveVerdict =
  | { kind: 'promote' }
  /** `until`: the time (ms) at which the verdict may change without news from the devices (a soak ending) */
  | { kind: 'wait'; until?: number }
  | { kind: 'halt'; reason: string; failures: DeviceFailure[] };

export interface WaveJudgement {
  tally: WaveTally;
  /** devices whose write the server refused: they never get the version and count as failed */
  refused: readonly DeviceFailure[];
  budget: FailureBudget;
  soakMs: number;
  now: number;
  /** when the wave started (ms), with its timeout, if any */
  startedAt?: number;
  timeoutMs?: number;
}

/**
 * Whether a wave is through (promote to the next), must halt, or is still going:
 * - halt when a device that reached the version fails a health check, or when failures pass the budget;
 * - wait while a device is not yet written or on its way, or until the devices that are done have been healthy
 *   for the soak time;
 * - halt when it waited longer than its timeout;
 * - else promote: every online device of the wave reports the version and stayed healthy (offline devices
 *   converge when they return, failures within the budget are counted).
 */
export function judgeWave(j: WaveJudgement): WaveVerdict {
  const failures = [...j.refused, ...j.tally.failures];
  const regressions = failures.filter((f) => f.healthRegression);
  if (regressions.length > 0) {
    return {
      kind: 'halt',
      reason: `${regressions.length} device(s) reached the version and then failed a health check`,
      failures,
    };
  }
  const allowed = allowedFailures(j.budget, j.tally.total);
  if (failures.length > allowed) {
    return {
      kind: 'halt',
      reason: `${failures.length} of ${j.tally.total} device(s) failed, more than --max-failures ${describeBudget(j.budget)} allows (${allowed})`,
      failures,
    };
  }
  const unwritten = j.tally.notTargeted - j.refused.length;
  const soakEnd = j.tally.lastHealthyAt === undefined ? undefined : j.tally.lastHealthyAt + j.soakMs;
  const through = unwritten <= 0 && j.tally.inFlight === 0;
  if (through && (soakEnd === undefined || soakEnd <= j.now)) return { kind: 'promote' };
  if (j.timeoutMs !== undefined && j.startedAt !== undefined && j.now - j.startedAt >= j.timeoutMs) {
    const waiting = through
      ? `the devices have not yet been healthy for the soak time`
      : `${j.tally.inFlight} device(s) still on their way`;
    return {
      kind: 'halt',
      reason: `the wave did not complete within --wave-timeout ${formatDuration(j.timeoutMs)}: ${waiting}`,
      failures: [...failures, ...j.tally.inFlightNames.map((name) => ({ name, why: 'still on its way (timed out)' }))],
    };
  }
  const deadlines = [
    through ? soakEnd : undefined,
    j.timeoutMs !== undefined && j.startedAt !== undefined ? j.startedAt + j.timeoutMs : undefined,
  ];
  const until = deadlines.filter((t): t is number => t !== undefined).sort((a, b) => a - b)[0];
  return until === undefined ? { kind: 'wait' } : { kind: 'wait', until };
}
