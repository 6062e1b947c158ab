import { isKnownTimeZone, windowDurationMs } from '@outpost/shared';
import type { MaintenanceWindow } from '@outpost/shared';
import { cronFields, firstOccurrence } from './cron-occurrences.js';
import type { CronFields } from './cron-occurrences.js';

/** A maintenance window ready for computing: its cron fields, zone and length. */
export interface WindowRule {
  /** the window as written, for messages */
  source: MaintenanceWindow;
  fields: CronFields;
  timeZone: string;
  durationMs: number;
}

/** What the windows say at one instant. */
export interface WindowState {
  /** how many usable windows there are; none: always open */
  windows: number;
  open: boolean;
  /** when the window open now closes (the latest of the open ones) */
  closesAtMs?: number;
  /** when the next window opens (after now) */
  nextStartMs?: number;
}

/** How far ahead the next opening is looked for: enough for a yearly window (and 29 February, nearly). */
const LOOKAHEAD_MS = 5 * 366 * 86_400_000;

/**
 * The usable windows of a spec.updatePolicy; a window the control plane should have refused (bad cron, duration,
 * zone) is left out and named in `rejected`.
 */
export function windowRules(windows: readonly MaintenanceWindow[] | undefined): {
  rules: WindowRule[];
  rejected: string[];
} {
  const rules: WindowRule[] = [];
  const rejected: string[] = [];
  for (const source of windows ?? []) {
    const fields = cronFields(source.schedule);
    const durationMs = windowDurationMs(source.duration);
    const timeZone = source.timeZone ?? 'UTC';
    if (fields === undefined || durationMs === undefined || !isKnownTimeZone(timeZone)) {
      rejected.push(`${source.schedule} for ${source.duration} (${timeZone})`);
      continue;
    }
    rules.push({ source, fields, timeZone, durationMs });
  }
  return { rules, rejected };
}

/**
 * Whether a window is open at `nowMs` (one opened at most its duration ago, closing after now) and when the
 * next one opens. Pure: the clock is an argument. No windows: always open.
 */
export function windowState(rules: readonly WindowRule[], nowMs: number): WindowState {
  if (rules.length === 0) return { windows: 0, open: true };
  let closesAtMs: number | undefined;
  let nextStartMs: number | undefined;
  for (const rule of rules) {
    const opened = firstOccurrence(rule.fields, rule.timeZone, nowMs - rule.durationMs + 1, nowMs);
    if (opened !== undefined) closesAtMs = Math.max(closesAtMs ?? 0, opened + rule.durationMs);
    const next = firstOccurrence(rule.fields, rule.timeZone, nowMs + 1, nowMs + LOOKAHEAD_MS);
    if (next !== undefined) nextStartMs = Math.min(nextStartMs ?? Infinity, next);
  }
  return {
    windows: rules.length,
    open: closesAtMs !== undefined,
    ...(closesAtMs === undefined ? {} : { closesAtMs }),
    ...(nextStartMs === undefined ? {} : { nextStartMs }),
  };
}
