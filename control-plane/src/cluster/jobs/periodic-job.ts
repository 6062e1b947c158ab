import type { LeaderJob } from '../leadership.js';

export interface PeriodicJobOptions {
  name: string;
  everyMs: number;
  /**
   * One run (the engine's stores are synchronous). A long one may work in turns (a promise); it should end early
   * when `stopped` aborts (the job stops: leadership lost, or shutdown before the stores close).
   */
  run(stopped: AbortSignal): void | Promise<void>;
  onError(err: unknown, what: string): void;
}

/**
 * A job run at once when it starts and then every `everyMs` while it runs: a new leader first does what the dead
 * one may have left undone. Counts its runs here, which `/healthz` shows (which replica does the work).
 */
export class PeriodicJob implements LeaderJob {
  private runCount = 0;

  constructor(private readonly options: PeriodicJobOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** runs in this process since it started */
  get runs(): number {
    return this.runCount;
  }

  start(stillLeading: () => Promise<boolean>): () => void {
    const stopped = new AbortController();
    let running = false;
    const runOnce = async (): Promise<void> => {
      // a run still going when the next is due is not doubled: the due one is skipped
      if (running) return;
      running = true;
      try {
        if (!(await stillLeading()) || stopped.signal.aborted) return;
        this.runCount++;
        await this.options.run(stopped.signal);
      } catch (err) {
        this.options.onError(err, `the background job ${this.name}`);
      } finally {
        running = false;
      }
    };
    void runOnce();
    const timer = setInterval(() => void runOnce(), this.options.everyMs);
    timer.unref();
    return () => {
      stopped.abort();
      clearInterval(timer);
    };
  }
}

/** Starts every job in this process (a single control plane on SQLite: it is always the leader); returns the stop. */
export function runJobsHere(jobs: readonly LeaderJob[]): () => void {
  const stops = jobs.map((job) => job.start(async () => true));
  return () => {
    for (const stop of stops) stop();
  };
}
