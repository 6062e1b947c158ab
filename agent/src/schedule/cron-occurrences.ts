import cron from 'node-cron';
import { sameWallMinute, zonedClock } from './zoned-clock.js';
import type { WallTime } from './zoned-clock.js';

const MINUTE_MS = 60_000;

/** A cron expression's fields as sets of numbers (node-cron's parse; special tokens L, W, # are refused). */
export interface CronFields {
  seconds: readonly number[];
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 (Sunday) .. 6 */
  weekdays: ReadonlySet<number>;
}

/** The fields of `schedule`, or undefined when node-cron refuses it or it uses L, W or #. */
export function cronFields(schedule: string): CronFields | undefined {
  if (!cron.validate(schedule)) return undefined;
  const parsed = cron.parse(schedule);
  const numbers = (values: readonly (number | string)[]): readonly number[] | undefined =>
    values.every((value): value is number => typeof value === 'number') ? values : undefined;
  const daysOfMonth = numbers(parsed.dayOfMonth);
  const weekdays = numbers(parsed.dayOfWeek);
  if (daysOfMonth === undefined || weekdays === undefined) return undefined;
  return {
    seconds: [...parsed.second].sort((a, b) => a - b),
    minutes: new Set(parsed.minute),
    hours: new Set(parsed.hour),
    daysOfMonth: new Set(daysOfMonth),
    months: new Set(parsed.month),
    weekdays: new Set(weekdays.map((day) => day % 7)),
  };
}

/**
 * The first time at or after `fromMs`, and not after `untilMs`, that `fields` name on the wall clock of
 * `timeZone`; undefined when there is none. Like node-cron, a day matches when its day of month, month and
 * weekday all match. A wall time the clock skips (spring forward) does not occur that day; one it repeats (fall
 * back) occurs once, at its first instance.
 *
 * It walks the zone's wall clock minute by minute, jumping over days and hours that cannot match, so a DST change
 * is read from the zone itself rather than assumed.
 */
export function firstOccurrence(
  fields: CronFields,
  timeZone: string,
  fromMs: number,
  untilMs: number,
): number | undefined {
  const wallOf = zonedClock(timeZone);
  let minute = Math.floor(fromMs / MINUTE_MS) * MINUTE_MS;
  while (minute <= untilMs) {
    const wall = wallOf(minute);
    if (!dayMatches(fields, wall)) {
      // to the next local midnight, less an hour in case today has 25 hours (never past it on a 23-hour day)
      const toMidnight = 24 * 60 - (wall.hour * 60 + wall.minute);
      minute += Math.max(60 - wall.minute, toMidnight - 60) * MINUTE_MS;
      continue;
    }
    if (!fields.hours.has(wall.hour)) {
      minute += (60 - wall.minute) * MINUTE_MS;
      continue;
    }
    if (fields.minutes.has(wall.minute) && !isRepeatedWallMinute(wallOf, minute, wall)) {
      for (const second of fields.seconds) {
        const at = minute + second * 1000;
        if (at >= fromMs && at <= untilMs) return at;
      }
    }
    minute += MINUTE_MS;
  }
  return undefined;
}

const dayMatches = (fields: CronFields, wall: WallTime): boolean =>
  fields.months.has(wall.month) && fields.daysOfMonth.has(wall.day) && fields.weekdays.has(wall.weekday);

/** The wall minute already happened earlier (the clock was set back by 30 or 60 minutes since). */
const isRepeatedWallMinute = (wallOf: (ms: number) => WallTime, minute: number, wall: WallTime): boolean =>
  [30, 60].some((back) => sameWallMinute(wallOf(minute - back * MINUTE_MS), wall));
