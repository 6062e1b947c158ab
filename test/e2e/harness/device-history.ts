import type { Condition, Device, OutpostClient } from '@outpost/shared';

/** Something a wait can fail early on, and that explains a timeout (the VM, with its serial console). */
export interface WaitGuard {
  onFailure(listener: (err: Error) => void): () => void;
  diagnosedError(message: string): Error;
}

export interface Observation {
  at: number;
  device: Device;
}

export interface OsReadyTransition {
  at: number;
  status: string;
  reason: string;
  message: string;
}

/**
 * Everything the API showed of one device, followed through a single-resource watch
 * (`POST /v1/{name}:watch`, NDJSON) from start to stop: the scenarios assert on it and wait on it.
 */
export class DeviceHistory {
  readonly observations: Observation[] = [];
  private readonly listeners = new Set<(device: Device) => void>();
  private readonly controller = new AbortController();
  private readonly loop: Promise<void>;

  private constructor(
    private readonly client: OutpostClient,
    readonly name: string,
  ) {
    this.loop = this.follow();
  }

  static start(client: OutpostClient, name: string): DeviceHistory {
    return new DeviceHistory(client, name);
  }

  get latest(): Device | undefined {
    return this.observations.at(-1)?.device;
  }

  /** OSReady as the watch saw it change (status, reason or message), in order. */
  osReadyTransitions(since = 0): OsReadyTransition[] {
    const transitions: OsReadyTransition[] = [];
    for (const { at, device } of this.observations) {
      if (at < since) continue;
      const ready = osReadyOf(device);
      if (ready === undefined) continue;
      const last = transitions.at(-1);
      if (last?.status === ready.status && last.reason === ready.reason && last.message === ready.message) continue;
      transitions.push({ at, status: ready.status, reason: ready.reason, message: ready.message });
    }
    return transitions;
  }

  /** The OSReady reasons seen since `since`, consecutive repeats collapsed: ['Pending', 'Downloading', ...]. */
  osReadyReasons(since = 0): string[] {
    const reasons: string[] = [];
    for (const t of this.osReadyTransitions(since)) if (reasons.at(-1) !== t.reason) reasons.push(t.reason);
    return reasons;
  }

  /** Every distinct value of a field seen since `since`, in order. */
  valuesSeen<T>(pick: (device: Device) => T | undefined, since = 0): T[] {
    const values: T[] = [];
    for (const { at, device } of this.observations) {
      const value = pick(device);
      if (at >= since && value !== undefined && values.at(-1) !== value) values.push(value);
    }
    return values;
  }

  /**
   * Resolves with the device once `predicate` holds (now or later); rejects after `timeoutMs`, or when
   * the guard (the VM) fails, naming what was awaited, the device's last status and the serial console.
   */
  waitFor(what: string, predicate: (device: Device) => boolean, timeoutMs: number, guard?: WaitGuard): Promise<Device> {
    const latest = this.latest;
    if (latest !== undefined && predicate(latest)) return Promise.resolve(latest);
    return new Promise<Device>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        removeGuard();
      };
      const listener = (device: Device): void => {
        if (!predicate(device)) return;
        cleanup();
        resolve(device);
      };
      const timer = setTimeout(() => {
        cleanup();
        const message = `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}; the device: ${this.summary()}`;
        reject(guard === undefined ? new Error(message) : guard.diagnosedError(message));
      }, timeoutMs);
      const removeGuard =
        guard?.onFailure((err) => {
          cleanup();
          reject(new Error(`while waiting for ${what} (the device: ${this.summary()}): ${err.message}`));
        }) ?? ((): void => {});
      this.listeners.add(listener);
    });
  }

  /** The device's last known state in one line, for failure messages. */
  summary(): string {
    const device = this.latest;
    if (device === undefined) return '(never seen)';
    const ready = osReadyOf(device);
    return JSON.stringify({
      connectionStatus: device.status?.connectionStatus,
      spec: device.spec?.osVersion,
      osVersion: device.status?.deviceInfo?.osVersion,
      osReady: ready === undefined ? undefined : `${ready.status}/${ready.reason}: ${ready.message}`,
      osUpdate: device.status?.osUpdate,
    });
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.loop;
  }

  private async follow(): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      try {
        for await (const message of this.client.watch<{ change?: Record<string, { device?: Device }> }>(
          `/v1/${this.name}:watch`,
          {},
          signal,
        )) {
          const change = Object.values(message.change ?? {})[0];
          if (change?.device !== undefined) this.observe(change.device);
        }
      } catch {
        if (signal.aborted) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private observe(device: Device): void {
    this.observations.push({ at: Date.now(), device });
    for (const listener of [...this.listeners]) listener(device);
  }
}

export function osReadyOf(device: Device | undefined): Condition | undefined {
  return device?.status?.conditions?.find((c) => c.type === 'OSReady');
}
