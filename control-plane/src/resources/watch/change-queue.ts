import type { Change } from '../change-log.js';

/**
 * The buffer between the writer (who pushes committed changes) and one watcher (who takes them in batches).
 * Bounded: past `capacity` the backlog is dropped and `overflowed` is set, so a slow watcher never grows memory
 * without end; the watcher then recovers from the change log.
 */
export class ChangeQueue {
  private items: Change[] = [];
  private waiter: (() => void) | undefined;
  overflowed = false;

  constructor(
    private readonly capacity: number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  push(change: Change): void {
    if (this.overflowed) return;
    if (this.items.length >= this.capacity) {
      this.items = [];
      this.overflowed = true;
    } else {
      this.items.push(change);
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
    const batch = this.items;
    this.items = [];
    return batch;
  }

  /** Clears the overflow state (after the watcher recovered) and returns whether it had overflowed. */
  resetOverflow(): boolean {
    const was = this.overflowed;
    this.overflowed = false;
    this.items = [];
    return was;
  }

  get length(): number {
    return this.items.length;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
