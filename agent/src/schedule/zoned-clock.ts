/** The wall-clock reading of an instant in a time zone. */
export interface WallTime {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
  /** 0..23 */
  hour: number;
  minute: number;
  /** 0 (Sunday) .. 6 */
  weekday: number;
}

const WEEKDAYS: Readonly<Record<string, number>> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** Reads instants on the wall clock of one IANA time zone (throws a RangeError for an unknown zone). */
export function zonedClock(timeZone: string): (ms: number) => WallTime {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
  });
  return (ms) => {
    const parts: Record<string, string> = {};
    for (const part of format.formatToParts(ms)) parts[part.type] = part.value;
    return {
      year: Number(parts['year']),
      month: Number(parts['month']),
      day: Number(parts['day']),
      hour: Number(parts['hour']),
      minute: Number(parts['minute']),
      weekday: WEEKDAYS[parts['weekday'] ?? ''] ?? -1,
    };
  };
}

export const sameWallMinute = (a: WallTime, b: WallTime): boolean =>
  a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;
