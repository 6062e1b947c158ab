import cron from 'node-cron';
import type { ScheduledTask } from 'node-cron';
import type { Logger } from '../logging/logger.js';

/** A job node-cron runs at each time `schedule` names (in `timeZone`, default the system's). */
export interface CronJob {
  /** unique among the agent's jobs: setting a job of the same name replaces it */
  name: string;
  schedule: string;
  timeZone?: string;
  run: () => Promise<void> | void;
}

/**
 * The agent's scheduled jobs, driven by node-cron: maintenance window openings (to act on them at once) and
 * housekeeping. A job's failure is logged; a run still going when the next is due is skipped.
 */
export class CronJobs {
  private readonly tasks = new Map<string, ScheduledTask>();

  constructor(private readonly logger: Logger) {}

  /** Schedules `job`, replacing the job of the same name. Throws on a schedule node-cron refuses. */
  set(job: CronJob): void {
    this.remove(job.name);
    const run = async (): Promise<void> => {
      try {
        await job.run();
      } catch (err) {
        this.logger.warn({ err, job: job.name }, 'a scheduled job failed');
      }
    };
    const task = cron.schedule(job.schedule, run, {
      name: job.name,
      noOverlap: true,
      suppressMissedWarning: true,
      ...(job.timeZone === undefined ? {} : { timezone: job.timeZone }),
    });
    this.tasks.set(job.name, task);
  }

  remove(name: string): void {
    const task = this.tasks.get(name);
    if (task === undefined) return;
    this.tasks.delete(name);
    void task.destroy();
  }

  /** The names of the jobs scheduled, those starting with `prefix` when given. */
  names(prefix = ''): string[] {
    return [...this.tasks.keys()].filter((name) => name.startsWith(prefix));
  }

  /** When the job `name` runs next, if scheduled. */
  nextRun(name: string): Date | undefined {
    return this.tasks.get(name)?.getNextRun() ?? undefined;
  }

  stop(): void {
    for (const name of [...this.tasks.keys()]) this.remove(name);
  }
}
