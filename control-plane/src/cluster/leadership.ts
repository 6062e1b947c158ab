/** A background job that must run on one replica at a time: started when elected, stopped when deposed. */
export interface LeaderJob {
  name: string;
  /**
   * Starts the job; returns what stops it. The job asks `stillLeading` before each run: a leader frozen and then
   * resumed runs its timers that fell due before it reads that its session was ended, and must not run them.
   */
  start(stillLeading: () => Promise<boolean>): () => void;
}

export interface LeadershipOptions {
  /** tries to take the leader lock (a PostgreSQL session advisory lock); true when this replica holds it */
  tryLock(): Promise<boolean>;
  /** while leading, at each attempt: shows the others this leader is alive (fails once its lock is gone) */
  showAlive(): Promise<void>;
  /** when the lock is taken: ends the leader's session if it showed no life for too long (frozen, or cut off) */
  deposeSilent(): Promise<boolean>;
  jobs: readonly LeaderJob[];
  onChange?(leader: boolean): void;
  onError(err: unknown, what: string): void;
}

/**
 * Runs the leader's jobs while this replica holds the leader lock. The lock lives as long as the connection
 * that took it: when the leader dies, the server drops its session and the next `attempt` of another replica
 * takes it. A leader that is frozen (SIGSTOP, a wedged host) keeps its session open: the leader shows it is
 * alive at each of its attempts, and another replica's attempt ends the session of a leader silent too long, then
 * takes the lock. `lost` is called when that connection ends here (the jobs stop at once).
 */
export class Leadership {
  private stops: (() => void)[] | undefined;
  private attempting = false;
  private readonly jobs: LeaderJob[];

  constructor(private readonly options: LeadershipOptions) {
    this.jobs = [...options.jobs];
  }

  /** More jobs to run while this replica leads: started at once when it leads now. */
  add(jobs: readonly LeaderJob[]): void {
    this.jobs.push(...jobs);
    if (this.stops !== undefined) this.startAll(jobs, this.stops);
  }

  get isLeader(): boolean {
    return this.stops !== undefined;
  }

  /**
   * Takes the lock if it is free, or once its holder was silent too long; the leader shows it is alive instead
   * (nothing happens while a previous attempt is still out).
   */
  async attempt(): Promise<void> {
    if (this.attempting) return;
    this.attempting = true;
    const leading = this.isLeader;
    try {
      if (this.isLeader) return await this.options.showAlive();
      if (!(await this.options.tryLock()) && !((await this.options.deposeSilent()) && (await this.options.tryLock()))) {
        return;
      }
      if (this.isLeader) return;
      this.stops = [];
      this.startAll(this.jobs, this.stops);
      this.options.onChange?.(true);
    } catch (err) {
      this.options.onError(err, leading ? 'showing the leader is alive' : 'trying to become the leader');
    } finally {
      this.attempting = false;
    }
  }

  private startAll(jobs: readonly LeaderJob[], stops: (() => void)[]): void {
    for (const job of jobs) {
      try {
        stops.push(job.start(() => this.confirm()));
      } catch (err) {
        this.options.onError(err, `starting the leader job ${job.name}`);
      }
    }
  }

  /** Whether this replica still leads: its session (which holds the lock) answers. */
  private async confirm(): Promise<boolean> {
    if (!this.isLeader) return false;
    try {
      await this.options.showAlive();
      return this.isLeader;
    } catch {
      return false;
    }
  }

  /** The lock is gone (its connection ended, or this replica is closing): the jobs stop. */
  lost(): void {
    const stops = this.stops;
    if (stops === undefined) return;
    this.stops = undefined;
    for (const stop of stops) stop();
    this.options.onChange?.(false);
  }
}
