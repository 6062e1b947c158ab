import type { Device, OutpostClient } from '@outpost/shared';

export interface Snapshot {
  connection?: string;
  running?: string;
  desired?: string;
  osReady?: { status: string; reason: string; message: string };
  runningSlot?: string;
  device: Device;
}

const snapshotOf = (device: Device): Snapshot => {
  const osReady = device.status?.conditions?.find((c) => c.type === 'OSReady');
  return {
    connection: device.status?.connectionStatus,
    running: device.status?.deviceInfo?.osVersion,
    desired: device.spec?.osVersion,
    osReady: osReady && { status: osReady.status, reason: osReady.reason, message: osReady.message },
    runningSlot: device.status?.osUpdate?.runningSlot,
    device,
  };
};

/**
 * Follows one device through a single-resource watch and keeps every state it went through, so a test can
 * wait for a state (no sleeps) and then assert the path that led there.
 */
export class DeviceTimeline {
  readonly states: Snapshot[] = [];
  private readonly controller = new AbortController();
  private waiters: { predicate: (s: Snapshot) => boolean; from: number; resolve: (s: Snapshot) => void }[] = [];
  private failure: unknown;

  constructor(
    client: OutpostClient,
    readonly name: string,
  ) {
    void this.follow(client);
  }

  private async follow(client: OutpostClient): Promise<void> {
    try {
      for await (const message of client.watch<{ change: Record<string, { device?: Device }> }>(
        `/v1/${this.name}:watch`,
        {},
        this.controller.signal,
      )) {
        const device = Object.values(message.change)[0]?.device;
        if (!device) continue;
        const snapshot = snapshotOf(device);
        this.states.push(snapshot);
        this.waiters = this.waiters.filter((w) => {
          if (this.states.length - 1 < w.from || !w.predicate(snapshot)) return true;
          w.resolve(snapshot);
          return false;
        });
      }
    } catch (err) {
      if (!this.controller.signal.aborted) this.failure = err;
    }
  }

  /** The mark of "now": `until(..., mark)` only considers states seen after it. */
  mark(): number {
    return this.states.length;
  }

  /** Resolves with the first state (at or after `from`) that satisfies `predicate`. */
  until(predicate: (s: Snapshot) => boolean, timeoutMs = 60_000, from = 0): Promise<Snapshot> {
    const seen = this.states.slice(from).find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const last = this.states.at(-1);
        reject(
          new Error(
            `timed out waiting on ${this.name}${this.failure ? ` (watch failed: ${String(this.failure)})` : ''}; ` +
              `last state: ${JSON.stringify(last && { ...last, device: undefined })}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push({
        predicate,
        from,
        resolve: (s) => {
          clearTimeout(timer);
          resolve(s);
        },
      });
    });
  }

  /** The OSReady reasons seen since `from`, consecutive repeats folded. */
  reasons(from = 0): string[] {
    const out: string[] = [];
    for (const s of this.states.slice(from)) {
      const reason = s.osReady?.reason;
      if (reason && out.at(-1) !== reason) out.push(reason);
    }
    return out;
  }

  close(): void {
    this.controller.abort();
  }
}
