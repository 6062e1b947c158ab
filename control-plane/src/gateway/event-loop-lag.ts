/**
 * How far this process's event loop lags, from a timer that should tick every `intervalMs`: the largest lag a
 * tick saw within the last `holdMs` (a stall leaves a backlog behind it, which the next quick tick does not
 * clear), or, while a long turn is still running (a burst of upgrades handled in one turn, say), how late the
 * next tick already is. The second part lets work queued behind a stall see it at once, before any timer runs.
 */
export class EventLoopLag {
  private lastTickAt: number;
  private peakLagMs = 0;
  private peakAt = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly intervalMs = 100,
    private readonly holdMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastTickAt = now();
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** the lag now, in milliseconds */
  get lagMs(): number {
    const at = this.now();
    const held = at - this.peakAt <= this.holdMs ? this.peakLagMs : 0;
    return Math.max(held, at - this.lastTickAt - this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const at = this.now();
    const lag = Math.max(0, at - this.lastTickAt - this.intervalMs);
    this.lastTickAt = at;
    if (lag >= this.peakLagMs || at - this.peakAt > this.holdMs) {
      this.peakLagMs = lag;
      this.peakAt = at;
    }
  }
}
