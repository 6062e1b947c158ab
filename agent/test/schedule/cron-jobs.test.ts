import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { CronJobs } from '../../src/schedule/cron-jobs.js';
import { windowRules, windowState } from '../../src/schedule/maintenance-windows.js';

const jobs: CronJobs[] = [];
afterEach(() => {
  for (const j of jobs.splice(0)) j.stop();
});

const cronJobs = () => {
  const { logger, messages } = capturedLogger();
  const created = new CronJobs(logger);
  jobs.push(created);
  return { jobs: created, messages };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('node-cron jobs', () => {
  it('runs a job on its schedule, replaces one of the same name, and stops', async () => {
    const { jobs: scheduled } = cronJobs();
    const runs: string[] = [];
    scheduled.set({ name: 'tick', schedule: '* * * * * *', run: () => void runs.push('first') });
    scheduled.set({ name: 'tick', schedule: '* * * * * *', run: () => void runs.push('second') });
    // a loaded machine may run a second's tick late or not at all: wait for the runs rather than for the clock
    await eventually(() => expect(runs.length).toBeGreaterThanOrEqual(2), 20_000);
    expect(new Set(runs)).toEqual(new Set(['second']));
    scheduled.stop();
    const count = runs.length;
    await sleep(1_200);
    expect(runs.length).toBe(count);
    expect(scheduled.names()).toEqual([]);
  });

  it('logs a failing job and keeps running it', async () => {
    const { jobs: scheduled, messages } = cronJobs();
    let runs = 0;
    scheduled.set({
      name: 'flaky',
      schedule: '* * * * * *',
      run: () => {
        runs += 1;
        throw new Error('disk full');
      },
    });
    await eventually(() => expect(runs).toBeGreaterThanOrEqual(2), 20_000);
    expect(messages().some((m) => /a scheduled job failed/.test(JSON.stringify(m)))).toBe(true);
  });

  it("schedules a window's opening where the pure window logic says it opens (Europe/Berlin)", () => {
    const { jobs: scheduled } = cronJobs();
    const { rules } = windowRules([{ schedule: '30 2 * * 1-5', duration: '1h', timeZone: 'Europe/Berlin' }]);
    const rule = rules[0]!;
    scheduled.set({ name: 'window', schedule: rule.source.schedule, timeZone: rule.timeZone, run: () => undefined });
    const state = windowState(rules, Date.now());
    expect(scheduled.nextRun('window')?.getTime()).toBe(state.nextStartMs);
  });
});
