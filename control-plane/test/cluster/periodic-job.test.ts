import { describe, expect, it, vi } from 'vitest';
import { PeriodicJob, runJobsHere } from '../../src/cluster/jobs/periodic-job.js';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

function countingJob(everyMs = 60_000): { job: PeriodicJob; runs: () => number } {
  let runs = 0;
  const job = new PeriodicJob({ name: 'count', everyMs, run: () => void runs++, onError: () => undefined });
  return { job, runs: () => runs };
}

describe('a periodic leader job', () => {
  it('runs at once when started while this replica still leads', async () => {
    const { job, runs } = countingJob();
    const stop = job.start(async () => true);
    await settle();
    stop();
    expect(runs()).toBe(1);
    expect(job.runs).toBe(1);
  });

  it('does not run when the leader finds it no longer leads (a resumed, deposed leader)', async () => {
    const { job, runs } = countingJob(5);
    let asked = 0;
    const stop = job.start(async () => (asked++, false));
    await settle();
    stop();
    expect(asked).toBeGreaterThan(1);
    expect(runs()).toBe(0);
    expect(job.runs).toBe(0);
  });

  it('does not run once stopped while it asked', async () => {
    const { job, runs } = countingJob();
    let answer: (leading: boolean) => void = () => undefined;
    const stop = job.start(() => new Promise<boolean>((resolve) => (answer = resolve)));
    stop();
    answer(true);
    await settle();
    expect(runs()).toBe(0);
  });

  it('waits for a run that works in turns before the next, and tells it when the job stops', async () => {
    let started = 0;
    let finish: () => void = () => undefined;
    let signal: AbortSignal | undefined;
    const job = new PeriodicJob({
      name: 'slow',
      everyMs: 5,
      run: (stopped) => {
        started++;
        signal = stopped;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      onError: () => undefined,
    });
    const stop = job.start(async () => true);
    await vi.waitFor(() => expect(started).toBe(1), { timeout: 10_000 });
    await settle(); // several periods pass while the first run is still going
    expect(started).toBe(1);
    expect(signal?.aborted).toBe(false);
    finish();
    await vi.waitFor(() => expect(started).toBe(2), { timeout: 10_000 });
    stop();
    expect(signal?.aborted).toBe(true);
  });

  it('runs on a lone control plane without asking anyone', async () => {
    const { job, runs } = countingJob();
    const stop = runJobsHere([job]);
    await settle();
    stop();
    expect(runs()).toBe(1);
  });
});
