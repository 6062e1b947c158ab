import type { PodPhase, ServiceStatus } from '@outpost/shared';

/** Why a service is not running; the values the agent reports in `reason`. */
export const REASONS = {
  started: 'Started',
  completed: 'Completed',
  error: 'Error',
  stopped: 'Stopped',
  restarting: 'Restarting',
  startError: 'StartError',
  runtimeUnavailable: 'RuntimeUnavailable',
  pending: 'Pending',
} as const;

const failed = (s: ServiceStatus): boolean =>
  s.state === 'TERMINATED' && s.reason !== REASONS.stopped && s.reason !== REASONS.completed;

/**
 * The phase of a pod from its services' states (reference.md §2, Kubernetes' meaning): RUNNING while any
 * service runs or waits to be restarted; once every one has ended, FAILED when one failed, STOPPED when every
 * one was stopped by a command, else SUCCEEDED; POD_CREATE_FAILED when a service's runtime is missing.
 */
export function podPhaseOf(services: readonly ServiceStatus[]): PodPhase {
  if (services.length === 0) return 'PENDING';
  if (services.some((s) => s.state === 'WAITING' && s.reason === REASONS.runtimeUnavailable))
    return 'POD_CREATE_FAILED';
  if (services.some((s) => s.state === 'RUNNING' || s.state === 'RESTARTING')) return 'RUNNING';
  if (services.some((s) => s.state === 'WAITING' || s.state === 'STATE_UNSPECIFIED')) return 'PENDING';
  if (services.some((s) => s.state === 'UNKNOWN')) return 'UNKNOWN';
  if (services.some(failed)) return 'FAILED';
  if (services.every((s) => s.reason === REASONS.stopped)) return 'STOPPED';
  return 'SUCCEEDED';
}

/** Whether a service that ended should be started again under its restart policy. */
export function shouldRestart(policy: string | undefined, exitedCleanly: boolean): boolean {
  if (policy === 'NEVER') return false;
  if (policy === 'ON_FAILURE') return !exitedCleanly;
  return true; // ALWAYS, and the default
}

/** Exponential backoff between restarts: initial, doubled each time, capped. */
export function restartDelayMs(restartsInARow: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, restartsInARow));
}
