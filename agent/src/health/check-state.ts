import { HEALTH_CHECK_DEFAULTS } from '@outpost/shared';
import type { ConditionStatus, ProbeSpec } from '@outpost/shared';

export const HEALTH_REASONS = ['Pending', 'Passing', 'Failing', 'Timeout', 'Unsupported'] as const;
export type HealthReason = (typeof HEALTH_REASONS)[number];

/** One run's verdict: Passing, Failing (the probe said no) or Timeout (cut at the check's timeout). */
export interface CheckResult {
  healthy: boolean;
  reason: 'Passing' | 'Failing' | 'Timeout';
  message: string;
}

export interface CheckCondition {
  status: ConditionStatus;
  reason: HealthReason;
  message: string;
}

/** What the agent knows of one check: the condition it reports and the results in a row behind it. */
export interface CheckState {
  condition: CheckCondition;
  successesInARow: number;
  failuresInARow: number;
}

/** The effective timing of a check, defaults filled in. */
export interface CheckSettings {
  intervalMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

export function checkSettings(spec: ProbeSpec): CheckSettings {
  const intervalSeconds = spec.intervalSeconds ?? HEALTH_CHECK_DEFAULTS.intervalSeconds;
  const timeoutSeconds = spec.timeoutSeconds ?? Math.min(HEALTH_CHECK_DEFAULTS.timeoutSeconds, intervalSeconds);
  return {
    intervalMs: intervalSeconds * 1000,
    timeoutMs: timeoutSeconds * 1000,
    successThreshold: spec.successThreshold ?? HEALTH_CHECK_DEFAULTS.successThreshold,
    failureThreshold: spec.failureThreshold ?? HEALTH_CHECK_DEFAULTS.failureThreshold,
  };
}

/** Before the thresholds are met the condition is Unknown/Pending. */
export function initialCheckState(settings: Pick<CheckSettings, 'successThreshold' | 'failureThreshold'>): CheckState {
  return {
    condition: {
      status: 'Unknown',
      reason: 'Pending',
      message: `waiting for ${settings.successThreshold} passing or ${settings.failureThreshold} failing results in a row`,
    },
    successesInARow: 0,
    failuresInARow: 0,
  };
}

/**
 * Folds one result into the state. The condition turns True after `successThreshold` passing results in a
 * row and False after `failureThreshold` failing ones; otherwise it stays as it is, message included, so a
 * steady check never re-reports (a failing check whose reason changes, e.g. Failing to Timeout, does).
 */
export function nextCheckState(
  state: CheckState,
  result: CheckResult,
  thresholds: Pick<CheckSettings, 'successThreshold' | 'failureThreshold'>,
): CheckState {
  if (result.healthy) {
    const successesInARow = state.successesInARow + 1;
    const flips = successesInARow >= thresholds.successThreshold && state.condition.status !== 'True';
    return {
      condition: flips ? { status: 'True', reason: 'Passing', message: result.message } : state.condition,
      successesInARow,
      failuresInARow: 0,
    };
  }
  const failuresInARow = state.failuresInARow + 1;
  const flips =
    failuresInARow >= thresholds.failureThreshold &&
    (state.condition.status !== 'False' || state.condition.reason !== result.reason);
  return {
    condition: flips ? { status: 'False', reason: result.reason, message: result.message } : state.condition,
    successesInARow: 0,
    failuresInARow,
  };
}
