import { z } from 'zod';

// The ranges a device's reports must keep to. They are wide enough for any real device and narrow enough that a
// broken or hostile agent cannot store absurd values (a CPU at 1e308 %, a sample from the year 9999, a megabyte
// of interface name). A report breaking one is refused whole with an `error` message and changes nothing.

/** ids, versions, types, short names */
export const MAX_LABEL_CHARS = 256;
/** paths, models, descriptions */
export const MAX_TEXT_CHARS = 4096;
/** human messages: conditions, errors (a failing command's last lines) */
export const MAX_MESSAGE_CHARS = 32 * 1024;

/** How far ahead of the server's clock a device's timestamp may be. */
export const MAX_CLOCK_AHEAD_MS = 24 * 60 * 60 * 1000;

export const label = z.string().max(MAX_LABEL_CHARS);
export const text = z.string().max(MAX_TEXT_CHARS);
export const message = z.string().max(MAX_MESSAGE_CHARS);

/** A count of bytes: a whole number, exact in a JSON number (below 2^53, 8 PiB). */
export const byteCount = z.int().nonnegative();

export const percent = z.number().min(0).max(100);

/**
 * A time a device's clock gave: RFC 3339, not before the Unix epoch (a clock never set reads 1970, and its device
 * must still be seen) and at most a day ahead of the server's clock.
 */
export const deviceTime = z.iso.datetime({ offset: true }).refine(
  (value) => {
    const ms = Date.parse(value);
    return ms >= 0 && ms <= Date.now() + MAX_CLOCK_AHEAD_MS;
  },
  { message: 'must be a time between 1970 and one day ahead of the server clock' },
);

/** A record with at most `max` entries, each key a label. */
export const boundedRecord = <V extends z.ZodType>(value: V, max: number) =>
  z
    .record(label, value)
    .refine((record) => Object.keys(record).length <= max, { message: `must have at most ${max} entries` });
