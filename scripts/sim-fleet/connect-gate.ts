/**
 * Limits how many simulated devices connect at once: thousands of sockets opened in the same millisecond overflow
 * the server's accept backlog (the kernel then drops connections, and they retry only seconds later). A device
 * enters before each connection attempt and leaves once welcomed, or after `holdMs` whatever happened.
 */
export class ConnectGate {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly holdMs: number,
  ) {}

  /** Resolves when the caller may connect; call the returned `leave` once welcomed (extra calls are harmless). */
  async enter(): Promise<() => void> {
    if (this.inFlight >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    let left = false;
    const timer = setTimeout(() => leave(), this.holdMs);
    const leave = (): void => {
      if (left) return;
      left = true;
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next === undefined) this.inFlight--;
      else next(); // the slot passes straight to the next device
    };
    return leave;
  }
}
