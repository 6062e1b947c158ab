import type { Change } from '../change-log.js';

/** How much one watcher may have waiting before its backlog is dropped. */
export interface QueueBounds {
  /** changes */
  capacity: number;
  /** bytes of the documents of those changes (Change.bytes) */
  maxBytes: number;
}

/**
 * The buffer between the writer (who pushes committed changes) and one watcher (who takes them in batches).
 * Bounded by count and by bytes: past either bound the backlog is dropped and `overflowed` is set, so a slow
 * watcher never grows memory without end (a few changes of a large document hold as much as thousands of small
 * ones); the watcher then recovers from the change log or the table. The documents are the writer's, shared by
 * every queue, and every backlog ends at the newest change: all queues together hold no more documents than
 * the longest backlog.
 */
export class ChangeQueue {
  private items: Change[] = [];
  private bytes = 0;
  private waiter: (() => void) | undefined;
  overflowed = false;

  constructor(
    private readonly bounds: QueueBounds,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  push(change: Change): void {
    if (this.overflowed) return;
    if (this.items.length >= this.bounds.capacity || this.bytes + change.bytes > this.bounds.maxBytes) {
      this.clear();
      this.overflowed = true;
    } else {
      this.items.push(change);
      this.bytes += change.bytes;
    }
    this.wake();
  }

  /** Everything queued now; waits (until aborted) when nothing is. Returns undefined when aborted. */
  async take(): Promise<Change[] | undefined> {
    while (this.items.length === 0 && !this.overflowed) {
      if (this.signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
      this.waiter = undefined;
    }
    if (this.signal.aborted) return undefined;
    return this.takeNow();
  }

  /** Everything queued now, without waiting. */
  takeNow(): Change[] {
    const batch = this.items;
    this.clear();
    return batch;
  }

  /** Clears the overflow state (after the watcher recovered) and returns whether it had overflowed. */
  resetOverflow(): boolean {
    const was = this.overflowed;
    this.overflowed = false;
    this.clear();
    return was;
  }

  get length(): number {
    return this.items.length;
  }

  private clear(): void {
    this.items = [];
    this.bytes = 0;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
