/** Runs a part's changes one after another; a failed change is handed to onError and the next one still runs. */
export class ChangeQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Runs the change once those before it ended; resolves or rejects as it does. */
  run(change: () => Promise<void>): Promise<void> {
    const result = this.tail.then(change, change);
    this.tail = result.catch(this.onError);
    return result;
  }
}
