import type { ResourceEngine } from '../resources/resource-engine.js';
import { foreignChangesOf } from '../resources/foreign-changes.js';

/** Log entries read per statement while catching up. */
const READ_BATCH = 2000;

export interface WatchFollowerOptions {
  /** tells the other replicas that this one committed changes up to `position` (a NOTIFY) */
  announce(position: number): void;
  onError(err: unknown, what: string): void;
}

/**
 * Publishes on this replica's change bus the changes other replicas committed to the shared store, so that its
 * watchers (and services) see every change, in log order. The engine publishes this replica's own changes
 * right after their commit; every change up to a transaction's first position was committed before it (the
 * store hands positions out in commit order), so the others' changes up to there are published first. A
 * wake-up (another replica's announcement, or a poll) publishes the rest. `published` only grows: nothing is
 * published twice, and a replica's own changes are never read back.
 */
export class WatchFollower {
  private published: number;
  private scheduled: NodeJS.Immediate | undefined;
  private readonly stopFollowingCommits: () => void;

  constructor(
    private readonly engine: ResourceEngine,
    private readonly options: WatchFollowerOptions,
  ) {
    this.published = engine.log.head();
    this.stopFollowingCommits = engine.onCommit((first, last) => this.committed(first, last));
  }

  /** The log position up to which every change has been published here. */
  get position(): number {
    return this.published;
  }

  /** Another replica committed up to `position` (unknown: undefined); catches up soon, once per turn. */
  wake(position?: number): void {
    if (position !== undefined && position <= this.published) return;
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.catchUp();
    });
  }

  /** Publishes the others' changes up to `upTo` (default: the store's head). */
  catchUp(upTo?: number): void {
    try {
      const target = upTo ?? this.engine.log.head();
      while (this.published < target) {
        const from = this.published;
        const { changes, position } = foreignChangesOf(this.engine, from, target, READ_BATCH);
        const first = changes[0];
        if (first !== undefined && first.seq > from + 1 && from > 0) {
          this.options.onError(
            new Error(`changes ${from + 1} to ${first.seq - 1} left the change log before they were published`),
            'following the other replicas',
          );
        }
        this.published = Math.max(this.published, position);
        for (const change of changes) this.engine.bus.publish(change);
      }
    } catch (err) {
      this.options.onError(err, 'reading the changes of the other replicas');
    }
  }

  stop(): void {
    this.stopFollowingCommits();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private committed(first: number, last: number): void {
    if (first > this.published) this.catchUp(first);
    // when that failed, the others' changes before this commit are not published (an error was reported)
    if (last > this.published) this.published = last;
    if (last > first) this.options.announce(last);
  }
}
