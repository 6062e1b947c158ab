import { ApiError } from '../errors/api-error.js';
import type { RolloutApi } from './rollout-api.js';
import { WatchedDevices } from './watched-devices.js';

const RETRYABLE: ReadonlySet<string> = new Set(['UNAVAILABLE', 'RESOURCE_EXHAUSTED', 'ABORTED']);

/**
 * One stateless watch kept open for the whole rollout: its responses fold into `devices`; a dropped stream is
 * opened again from the last resume token (so nothing is missed and nothing polled). `next()` waits for the
 * devices to be current after news, a deadline, or the end.
 */
export class WatchFeed {
  readonly watched = new WatchedDevices();
  private waiters: (() => void)[] = [];
  private failure: unknown;
  private stopped = false;

  constructor(
    private readonly api: RolloutApi,
    private readonly request: { parent: string; filter: string; fieldMask: readonly string[] },
    private readonly signal: AbortSignal,
    private readonly onReconnect: (why: string) => void,
  ) {
    void this.pump();
  }

  /** Resolves when the devices are current after a change, at `deadline` (ms since the epoch), or on stop. */
  async next(deadline?: number): Promise<void> {
    this.check();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      if (deadline !== undefined) timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
    });
    if (timer !== undefined) clearTimeout(timer);
    this.check();
  }

  /** Waits for the first current state of the watch (its snapshot). */
  async untilCurrent(): Promise<void> {
    while (!this.watched.current) await this.next();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }

  private async pump(): Promise<void> {
    const onAbort = (): void => {
      this.stopped = true;
      this.wake();
    };
    this.signal.addEventListener('abort', onAbort, { once: true });
    let delay = 500;
    while (!this.signal.aborted) {
      try {
        const request = { ...this.request, resumeToken: this.watched.resumeToken };
        for await (const response of this.api.watchDevices(request, this.signal)) {
          this.watched.apply(response);
          delay = 500;
          if (this.watched.current) this.wake();
        }
        if (this.signal.aborted) break;
        this.onReconnect('the watch stream ended');
      } catch (err) {
        if (this.signal.aborted) break;
        if (!(err instanceof ApiError) || !RETRYABLE.has(err.status)) {
          this.failure = err;
          this.wake();
          return;
        }
        this.onReconnect(`${err.status}: ${err.message}`);
      }
      this.watched.current = false;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
    this.signal.removeEventListener('abort', onAbort);
    if (!this.stopped) this.wake();
  }
}
