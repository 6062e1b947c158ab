import { mergeReportedStatus, usageFromMetrics } from '@outpost/shared';
import type { Device, DeviceStatus, MetricsSample, ReportedStatus } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';

type StatusEdit = (status: DeviceStatus) => DeviceStatus;

export interface StatusWriterOptions {
  /** how long edits wait to be written together (default 25 ms) */
  flushDelayMs?: number;
  /**
   * the most devices a timed flush writes in one transaction (default 1000); a larger backlog is written over
   * several turns of the event loop, so one long write never holds it (lease renewals, heartbeats) for seconds
   */
  devicesPerFlush?: number;
  /** told of a write that failed (a full disk); its edits are kept and written again in `retryInMs` */
  onFlushFailed: (err: unknown, retryInMs: number) => void;
}

/** After a failed write, the next try waits this long, doubling up to the maximum while writes keep failing. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/**
 * Collects status edits from many agents and writes them in one transaction per flush, so thousands of reports a
 * second cost a few commits, not thousands (and on PostgreSQL a few round trips: the devices are read together
 * and their writes go out together with the commit). Edits of one device apply in arrival order.
 *
 * A connection-state change is never merged with the edits after it: each one ends its device's current
 * write, so a connection that comes and goes within one flush still shows watchers CONNECTED, then
 * DISCONNECTED (as separate changes), instead of nothing at all.
 *
 * A write that fails (SQLITE_FULL on a full disk, a lost PostgreSQL connection) never throws out of a timer: its edits go back in front of
 * the newer ones and are written again later, the waits growing from 1 s to 30 s while writes keep failing.
 */
export class StatusWriter {
  /** per device, its writes in order (the last one takes new edits): the edits of each are applied together */
  private pending = new Map<string, StatusEdit[][]>();
  /** the devices whose last pending write ended with a connection change (to that state), with nothing after it */
  private endedBy = new Map<string, 'CONNECTED' | 'DISCONNECTED'>();
  private timer: NodeJS.Timeout | undefined;
  /** transactions written since start (a server gauge) */
  batches = 0;
  /** writes failed in a row */
  private failures = 0;
  private closed = false;
  private readonly flushDelayMs: number;
  private readonly devicesPerFlush: number;

  constructor(
    private readonly devices: ResourceHandle<Device>,
    private readonly options: StatusWriterOptions,
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 25;
    this.devicesPerFlush = options.devicesPerFlush ?? 1000;
  }

  report(name: string, reported: ReportedStatus): void {
    this.edit(name, false, (status) => mergeReportedStatus(status, reported));
  }

  metrics(name: string, sample: MetricsSample): void {
    this.edit(name, false, (status) => ({
      ...status,
      metrics: sample,
      deviceInfo: { ...status.deviceInfo, usage: usageFromMetrics(sample) },
    }));
  }

  /**
   * A change to the state its last write ended with, with nothing in between (the agent's hello right behind
   * its link's CONNECTED), joins that write: one write and one change for both, as watchers would see no
   * difference between the two.
   */
  connection(name: string, state: 'CONNECTED' | 'DISCONNECTED', time: string, agent?: DeviceStatus['agent']): void {
    const edit: StatusEdit = (status) => {
      const changed = status.connectionStatus !== state;
      return {
        ...status,
        connectionStatus: state,
        connectionStatusChangeTime: changed ? time : (status.connectionStatusChangeTime ?? time),
        ...(agent ? { agent } : {}),
      };
    };
    const writes = this.pending.get(name);
    if (writes !== undefined && this.endedBy.get(name) === state) {
      writes[writes.length - 2]!.push(edit);
      return;
    }
    this.edit(name, true, edit);
    this.endedBy.set(name, state);
  }

  /** `endsWrite`: later edits of the device go into a write of their own. */
  private edit(name: string, endsWrite: boolean, edit: StatusEdit): void {
    this.endedBy.delete(name);
    let writes = this.pending.get(name);
    if (!writes) this.pending.set(name, (writes = [[]]));
    writes[writes.length - 1]?.push(edit);
    if (endsWrite) writes.push([]);
    if (!this.closed) this.timer ??= setTimeout(() => this.flushSome(), this.flushDelayMs);
  }

  /**
   * Writes everything pending now, in one transaction; false when that failed (the edits are kept and a
   * retry is scheduled).
   */
  flush(): boolean {
    return this.writePending(Infinity);
  }

  /**
   * Writes now, in one transaction, what is pending for these devices only (the others wait for the timer);
   * false when that failed (the edits are kept and a retry is scheduled).
   */
  flushDevices(names: readonly string[]): boolean {
    if (!names.some((name) => this.pending.has(name))) return true;
    return this.writeBatch(this.takeDevices(names));
  }

  /** The timer's flush: at most `devicesPerFlush` devices, the rest on the event loop's next turn. */
  private flushSome(): void {
    this.writePending(this.devicesPerFlush);
  }

  private writePending(maxDevices: number): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return true;
    if (!this.writeBatch(this.takePending(maxDevices))) return false;
    if (this.pending.size > 0 && !this.closed) this.timer = setTimeout(() => this.flushSome(), 0);
    return true;
  }

  /** Writes a batch taken from what is pending; when that fails, puts it back and schedules a retry. */
  private writeBatch(batch: Map<string, StatusEdit[][]>): boolean {
    try {
      this.write(batch);
    } catch (err) {
      this.keepForRetry(batch);
      this.failures++;
      const retryInMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1));
      if (this.timer) clearTimeout(this.timer);
      this.timer = this.closed ? undefined : setTimeout(() => this.flushSome(), retryInMs);
      this.options.onFlushFailed(err, retryInMs);
      return false;
    }
    this.failures = 0;
    this.batches++;
    return true;
  }

  /** The pending writes of the first `maxDevices` devices (in the order they first had an edit pending). */
  private takePending(maxDevices: number): Map<string, StatusEdit[][]> {
    if (this.pending.size <= maxDevices) {
      const all = this.pending;
      this.pending = new Map();
      this.endedBy = new Map();
      return all;
    }
    const first: string[] = [];
    for (const name of this.pending.keys()) {
      if (first.length === maxDevices) break;
      first.push(name);
    }
    return this.takeDevices(first);
  }

  /** The pending writes of these devices (those that have any), taken out of what is pending. */
  private takeDevices(names: readonly string[]): Map<string, StatusEdit[][]> {
    const batch = new Map<string, StatusEdit[][]>();
    for (const name of names) {
      const writes = this.pending.get(name);
      if (writes === undefined) continue;
      batch.set(name, writes);
      this.pending.delete(name);
      this.endedBy.delete(name);
    }
    return batch;
  }

  /** Writes what is pending one last time; nothing is retried or scheduled after. */
  close(): boolean {
    this.closed = true;
    return this.flush();
  }

  /** Puts a batch that failed back in front of the edits that arrived since. */
  private keepForRetry(batch: Map<string, StatusEdit[][]>): void {
    for (const [name, writes] of this.pending) {
      const earlier = batch.get(name);
      if (earlier) earlier.push(...writes);
      else batch.set(name, writes);
    }
    this.pending = batch;
  }

  private write(batch: Map<string, StatusEdit[][]>): void {
    // the writes of one device in order, each over what the one before it stored
    this.devices.patchAll(
      [...batch].flatMap(([name, writes]) =>
        writes
          .filter((edits) => edits.length > 0)
          .map(
            (edits) =>
              [
                name,
                (doc: Device): Device => ({
                  ...doc,
                  status: edits.reduce((s, edit) => edit(s), doc.status ?? {}),
                }),
              ] as const,
          ),
      ),
    );
  }
}
