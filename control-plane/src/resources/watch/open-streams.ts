import { ApiError, permissionDenied } from '@outpost/shared';

/**
 * How often open streams re-check their authorization by default, besides the re-check that every change to what
 * authorization depends on triggers (see `reauthorizeSoon`): a safety net, so it can be rare.
 */
export const DEFAULT_REAUTHORIZE_EVERY_MS = 60_000;

export interface OpenStream {
  /** the API key the stream was opened with (its principal's name) */
  owner: string;
  /** throws when the stream's principal no longer holds what opening it needed */
  recheck: () => void;
  /** ends the stream with an error line */
  end: (error: ApiError) => void;
  /** aborts the stream without an error line (shutdown) */
  abort: () => void;
}

/**
 * The open streams of a router. Authorization is checked when a stream opens; the grants it rested on can lapse
 * later (a project leaves the organization a key's grant came through, the key is revoked), so every stream is
 * re-checked when what authorization depends on changes (`reauthorizeSoon`), and periodically while any is open,
 * and ended with the error when its check fails. Re-checking on changes rather than every second keeps idle
 * streams free: each check may read the hierarchy from storage.
 */
export class OpenStreams {
  private readonly streams = new Set<OpenStream>();
  private timer: NodeJS.Timeout | undefined;
  private pendingRecheck: NodeJS.Immediate | undefined;

  constructor(private readonly reauthorizeEveryMs: number = DEFAULT_REAUTHORIZE_EVERY_MS) {}

  /** Registers a stream; the function returned forgets it. */
  add(stream: OpenStream): () => void {
    this.streams.add(stream);
    if (!this.timer) {
      this.timer = setInterval(() => this.reauthorizeAll(), this.reauthorizeEveryMs);
      this.timer.unref();
    }
    return () => {
      this.streams.delete(stream);
      if (this.streams.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /**
   * Re-checks every stream once the current turn is done (the change that called it is committed and its
   * listeners ran); several calls in one turn make one re-check.
   */
  reauthorizeSoon(): void {
    if (this.pendingRecheck || this.streams.size === 0) return;
    this.pendingRecheck = setImmediate(() => {
      this.pendingRecheck = undefined;
      this.reauthorizeAll();
    });
  }

  /** Ends every stream whose check fails, with that check's error. */
  reauthorizeAll(): void {
    for (const stream of [...this.streams]) {
      try {
        stream.recheck();
      } catch (err) {
        stream.end(err instanceof ApiError ? err : permissionDenied('the stream is no longer authorized'));
      }
    }
  }

  /** Ends the streams of one API key (revoked) with `error`. */
  endOwnedBy(owner: string, error: ApiError): void {
    for (const stream of [...this.streams]) if (stream.owner === owner) stream.end(error);
  }

  /** The API keys that have streams open (each once). */
  owners(): string[] {
    return [...new Set([...this.streams].map((stream) => stream.owner))];
  }

  abortAll(): void {
    if (this.pendingRecheck) clearImmediate(this.pendingRecheck);
    this.pendingRecheck = undefined;
    for (const stream of [...this.streams]) stream.abort();
  }

  get size(): number {
    return this.streams.size;
  }
}

/**
 * Wraps an iterator so that `end(error)` makes it fail with `error` at once, even while the inner iterator waits
 * for its next value (a watch with no changes). The inner iterator is left to its own `return`.
 */
export function endable<T>(inner: AsyncIterator<T>): { iterator: AsyncIterator<T>; end: (error: Error) => void } {
  let endedWith: Error | undefined;
  let fail: (error: Error) => void = () => {};
  const ended = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  ended.catch(() => {});
  const iterator: AsyncIterator<T> = {
    next: () => {
      if (endedWith) return Promise.reject(endedWith);
      const step = inner.next();
      // a step that loses the race still settles later: its rejection is not unhandled
      step.catch(() => {});
      return Promise.race([step, ended]);
    },
    return: async (value?: unknown) => (await inner.return?.(value)) ?? { done: true, value: undefined },
  };
  return {
    iterator,
    end: (error) => {
      if (endedWith) return;
      endedWith = error;
      fail(error);
    },
  };
}
