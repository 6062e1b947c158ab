import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { withLocalTimeForSystemZone } from '../node-cron-local-time.mjs';

// The bundle's patch of node-cron (agent/node-cron-local-time.mjs): for a task without a time zone, the wall clock
// comes from a Date's local-time getters instead of Intl.DateTimeFormat. Compared here with node-cron's own
// reading, both loaded from copies of node-cron's dist/ whose internals are exported for the comparison.

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  weekday: string;
  gmt: string;
}
interface TimeReading {
  buildDateParts(date: Date, timezone?: string): DateParts;
  localTimeToTimestamp(parts: Omit<DateParts, 'weekday' | 'gmt'>, timezone?: string): number;
}

const NODE_CRON_DIST = join(dirname(createRequire(import.meta.url).resolve('node-cron')));
const INTERNALS = '\nexport { buildDateParts as __buildDateParts, localTimeToTimestamp as __localTimeToTimestamp };\n';
const dir = mkdtempSync(join(tmpdir(), 'node-cron-local-time-'));

async function nodeCronCopy(name: string, patch: (source: string) => string): Promise<TimeReading> {
  const copy = join(dir, name);
  cpSync(NODE_CRON_DIST, copy, { recursive: true });
  const shared = join(copy, '_shared.js');
  const source = readFileSync(shared, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '');
  writeFileSync(shared, patch(source) + INTERNALS);
  const module = (await import(pathToFileURL(shared).href)) as {
    __buildDateParts: TimeReading['buildDateParts'];
    __localTimeToTimestamp: TimeReading['localTimeToTimestamp'];
  };
  return { buildDateParts: module.__buildDateParts, localTimeToTimestamp: module.__localTimeToTimestamp };
}

/** Counts the Intl.DateTimeFormat built while `run` runs. */
function intlFormatsBuiltBy(run: () => void): number {
  const original = Intl.DateTimeFormat;
  let built = 0;
  Intl.DateTimeFormat = new Proxy(original, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      built++;
      return new target(...args);
    },
  });
  try {
    run();
  } finally {
    Intl.DateTimeFormat = original;
  }
  return built;
}

const plain = (parts: DateParts): DateParts => ({ ...parts, gmt: parts.gmt });
const originalTz = process.env.TZ;

afterEach(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("node-cron's reading of the system zone's wall clock, patched for the bundle", () => {
  // Europe/Berlin: both DST changes; America/St_Johns: a half-hour offset west of UTC; Asia/Kolkata: east of it
  for (const zone of ['Europe/Berlin', 'America/St_Johns', 'Asia/Kolkata', 'UTC']) {
    it(`gives the same wall clock and UTC offset as node-cron's Intl reading, hour by hour through 2026 in ${zone}`, async () => {
      process.env.TZ = zone;
      const original = await nodeCronCopy(`original-${zone.replace('/', '-')}`, (source) => source);
      const patched = await nodeCronCopy(`patched-${zone.replace('/', '-')}`, withLocalTimeForSystemZone);
      const midsummer = patched.buildDateParts(new Date(Date.UTC(2026, 5, 21)));
      expect(midsummer.gmt).toBe(
        { 'Europe/Berlin': 'GMT+02:00', 'America/St_Johns': 'GMT-02:30', 'Asia/Kolkata': 'GMT+05:30' }[zone] ?? 'Z',
      );
      const start = Date.UTC(2026, 0, 1);
      for (let t = start; t < Date.UTC(2027, 0, 1); t += 3_600_000 + 7_001) {
        const date = new Date(t);
        expect(plain(patched.buildDateParts(date))).toEqual(plain(original.buildDateParts(date)));
      }
      // wall-clock times back to instants, including Berlin's skipped (02:30 on 29 March) and repeated (02:30 on
      // 25 October) ones
      for (const [month, day] of [
        [3, 29],
        [10, 25],
        [6, 15],
      ] as const) {
        for (let hour = 0; hour < 5; hour++) {
          const parts = { year: 2026, month, day, hour, minute: 30, second: 0, millisecond: 0 };
          expect(patched.localTimeToTimestamp(parts)).toBe(original.localTimeToTimestamp(parts));
        }
      }
    });
  }

  it('builds no Intl.DateTimeFormat for a task without a time zone, and still uses Intl for one with a zone', async () => {
    process.env.TZ = 'Europe/Berlin';
    const patched = await nodeCronCopy('patched-intl', withLocalTimeForSystemZone);
    const parts = { year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0, millisecond: 0 };
    expect(
      intlFormatsBuiltBy(() => {
        void patched.buildDateParts(new Date()).gmt;
        patched.localTimeToTimestamp(parts);
      }),
    ).toBe(0);
    expect(
      intlFormatsBuiltBy(() => {
        void patched.buildDateParts(new Date(), 'America/New_York').gmt;
      }),
    ).toBeGreaterThan(0);
    expect(patched.buildDateParts(new Date(Date.UTC(2026, 6, 1, 12)), 'America/New_York')).toMatchObject({
      hour: 8,
      gmt: 'GMT-04:00',
    });
  });

  it('refuses a node-cron whose source no longer has the functions it patches', () => {
    expect(() => withLocalTimeForSystemZone('function somethingElse() {}')).toThrow(/update the patch/);
  });
});
