import cron from 'node-cron';
import { z } from 'zod';
import { durationProblem, parseDuration } from '../../netconfig/duration.js';
import type { ProblemList } from '../../netconfig/config-problem.js';
import { quoted } from '../../netconfig/config-problem.js';

/** At most this many maintenance windows per device. */
export const MAX_MAINTENANCE_WINDOWS = 16;
/** A window lasts at least a minute and at most a week. */
export const MIN_WINDOW_MS = 60_000;
export const MAX_WINDOW_MS = 7 * 86_400_000;

/**
 * A recurring maintenance window: it opens at each time `schedule` (a cron expression of 5 or 6 fields, read
 * in `timeZone`, default UTC) names and stays open for `duration` (e.g. "2h", "1h30m").
 */
export const maintenanceWindowSchema = z.object({
  schedule: z.string(),
  duration: z.string(),
  /** an IANA time zone, e.g. Europe/Berlin; default UTC */
  timeZone: z.string().optional(),
});
export type MaintenanceWindow = z.infer<typeof maintenanceWindowSchema>;

/** When an upgrade may switch slots and reboot (spec.updatePolicy). No windows: at any time. */
export const updatePolicySchema = z.object({
  maintenanceWindows: z.array(maintenanceWindowSchema).optional(),
  /** true: the image is downloaded only inside a window too (default: downloads run at any time) */
  downloadInWindowOnly: z.boolean().optional(),
});
export type UpdatePolicy = z.infer<typeof updatePolicySchema>;

/** The cron fields a window may use: plain numbers, ranges, lists, steps and names (no L, W or #). */
const SPECIAL_CRON_TOKEN = /[LW#?]/i;
const NAMES_OF_DAYS_AND_MONTHS = /\b(sun|mon|tue|wed|thu|fri|sat|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/gi;

/** A window's duration in milliseconds, or undefined when it is not one (malformed or out of range). */
export function windowDurationMs(duration: string): number | undefined {
  const ms = parseDuration(duration);
  return ms === undefined || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS ? undefined : ms;
}

/** Whether `timeZone` is an IANA time zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The problem of a cron expression as a window's schedule, or undefined when fine. */
export function cronScheduleProblem(schedule: string): string | undefined {
  if (schedule.length > 200 || !cron.validate(schedule)) {
    return `${quoted(schedule)} is not a cron expression such as "0 2 * * *" (minute hour day month weekday)`;
  }
  if (SPECIAL_CRON_TOKEN.test(schedule.replace(NAMES_OF_DAYS_AND_MONTHS, ''))) {
    return `${quoted(schedule)} uses L, W, # or ?, which maintenance windows do not support`;
  }
  return undefined;
}

/** Adds the problems of a spec.updatePolicy to `problems`, each under `path`. */
export function checkUpdatePolicy(policy: UpdatePolicy, path: string, problems: ProblemList): void {
  const windows = policy.maintenanceWindows ?? [];
  if (windows.length > MAX_MAINTENANCE_WINDOWS) {
    problems.add(`${path}.maintenanceWindows`, `at most ${MAX_MAINTENANCE_WINDOWS} windows`);
  }
  windows.slice(0, MAX_MAINTENANCE_WINDOWS).forEach((window, index) => {
    const at = `${path}.maintenanceWindows[${index}]`;
    const schedule = cronScheduleProblem(window.schedule);
    if (schedule !== undefined) problems.add(`${at}.schedule`, schedule);
    const duration = durationProblem(window.duration, MIN_WINDOW_MS, MAX_WINDOW_MS);
    if (duration !== undefined) problems.add(`${at}.duration`, duration);
    if (window.timeZone !== undefined && !isKnownTimeZone(window.timeZone)) {
      problems.add(`${at}.timeZone`, `${quoted(window.timeZone)} is not an IANA time zone such as "Europe/Berlin"`);
    }
  });
}
