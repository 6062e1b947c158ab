import cron from 'node-cron';
import { describe, expect, it } from 'vitest';
import { cronFields, firstOccurrence } from '../../src/schedule/cron-occurrences.js';
import { windowRules, windowState } from '../../src/schedule/maintenance-windows.js';
import type { MaintenanceWindow } from '@outpost/shared';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

function stateAt(windows: MaintenanceWindow[], time: string) {
  const { rules, rejected } = windowRules(windows);
  expect(rejected).toEqual([]);
  const state = windowState(rules, at(time));
  return { open: state.open, closesAt: iso(state.closesAtMs), nextStart: iso(state.nextStartMs) };
}

describe('maintenance windows (a fake clock)', () => {
  const nightly: MaintenanceWindow = { schedule: '0 2 * * *', duration: '2h' };

  it('is always open without windows', () => {
    expect(windowState([], at('2026-05-01T12:00:00Z'))).toEqual({ windows: 0, open: true });
  });

  it('is open inside a window, from its first minute to just before its end', () => {
    expect(stateAt([nightly], '2026-05-01T02:00:00Z')).toEqual({
      open: true,
      closesAt: '2026-05-01T04:00:00.000Z',
      nextStart: '2026-05-02T02:00:00.000Z',
    });
    expect(stateAt([nightly], '2026-05-01T03:59:59.999Z').open).toBe(true);
  });

  it('is closed outside, and says when the next window opens', () => {
    expect(stateAt([nightly], '2026-05-01T04:00:00Z')).toEqual({
      open: false,
      closesAt: undefined,
      nextStart: '2026-05-02T02:00:00.000Z',
    });
    expect(stateAt([nightly], '2026-05-01T01:59:59Z')).toEqual({
      open: false,
      closesAt: undefined,
      nextStart: '2026-05-01T02:00:00.000Z',
    });
  });

  it('stays open across midnight in its time zone', () => {
    const lateNight: MaintenanceWindow = { schedule: '0 23 * * fri', duration: '3h', timeZone: 'Europe/Berlin' };
    // Friday 2026-01-09 23:00 CET is 22:00 UTC; 01:30 CET on Saturday is 00:30 UTC
    expect(stateAt([lateNight], '2026-01-10T00:30:00Z')).toEqual({
      open: true,
      closesAt: '2026-01-10T01:00:00.000Z',
      nextStart: '2026-01-16T22:00:00.000Z',
    });
    expect(stateAt([lateNight], '2026-01-10T01:00:00Z').open).toBe(false);
    // a Saturday 23:00 is no window of a Friday schedule
    expect(stateAt([lateNight], '2026-01-10T22:30:00Z').open).toBe(false);
  });

  it('skips a start the spring-forward change skips (Europe/Berlin, last Sunday of March)', () => {
    const at0230: MaintenanceWindow = { schedule: '30 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' };
    // 2026-03-29: 02:00 CET becomes 03:00 CEST, so there is no 02:30; the next is 02:30 CEST on the 30th
    expect(stateAt([at0230], '2026-03-29T00:00:00Z')).toEqual({
      open: false,
      closesAt: undefined,
      nextStart: '2026-03-30T00:30:00.000Z',
    });
    // the day before, 02:30 CET is 01:30 UTC
    expect(stateAt([at0230], '2026-03-28T01:45:00Z').open).toBe(true);
  });

  it('lasts its duration in real time over the spring-forward change', () => {
    const at0100: MaintenanceWindow = { schedule: '0 1 * * *', duration: '3h', timeZone: 'Europe/Berlin' };
    // opens 01:00 CET (00:00 UTC) and closes three hours later: 05:00 CEST (03:00 UTC)
    expect(stateAt([at0100], '2026-03-29T02:59:00Z')).toMatchObject({
      open: true,
      closesAt: '2026-03-29T03:00:00.000Z',
    });
  });

  it('opens once at a time the fall-back change repeats (Europe/Berlin, last Sunday of October)', () => {
    const at0230: MaintenanceWindow = { schedule: '30 2 * * *', duration: '30m', timeZone: 'Europe/Berlin' };
    // 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 CEST (00:30 UTC) opens, 02:30 CET (01:30 UTC) does not
    expect(stateAt([at0230], '2026-10-25T00:45:00Z')).toEqual({
      open: true,
      closesAt: '2026-10-25T01:00:00.000Z',
      nextStart: '2026-10-26T01:30:00.000Z',
    });
    expect(stateAt([at0230], '2026-10-25T01:45:00Z').open).toBe(false);
  });

  it('is open when any of several windows is, closing at the latest end', () => {
    const windows: MaintenanceWindow[] = [
      { schedule: '0 2 * * *', duration: '2h' },
      { schedule: '0 3 * * *', duration: '2h' },
    ];
    expect(stateAt(windows, '2026-05-01T03:30:00Z')).toMatchObject({
      open: true,
      closesAt: '2026-05-01T05:00:00.000Z',
    });
  });

  it('leaves out the windows it cannot compute, naming them', () => {
    const { rules, rejected } = windowRules([
      nightly,
      { schedule: '0 2 L * *', duration: '1h' },
      { schedule: '0 2 * * *', duration: 'soon' },
      { schedule: '0 2 * * *', duration: '1h', timeZone: 'Mars/Olympus' },
    ]);
    expect(rules).toHaveLength(1);
    expect(rejected).toHaveLength(3);
  });

  it('finds the same starts as node-cron away from DST changes', () => {
    for (const schedule of ['0 2 * * *', '*/20 9-17 * * 1-5', '15 4 1,15 * *', '0 0 * 2 sun', '30 6 * * 0']) {
      const fields = cronFields(schedule);
      expect(fields).toBeDefined();
      const task = cron.createTask(schedule, () => undefined, { timezone: 'Asia/Tokyo' });
      let from = Math.floor(Date.now() / 1000) * 1000 + 1;
      const expected = task.getNextRuns(5).map((d) => d.getTime());
      void task.destroy();
      const ours: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const next = firstOccurrence(fields!, 'Asia/Tokyo', from, from + 400 * 86_400_000);
        ours.push(next!);
        from = next! + 1;
      }
      expect(ours.map(iso)).toEqual(expected.map(iso));
    }
  });
});
