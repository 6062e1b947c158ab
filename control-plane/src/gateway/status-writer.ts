import { mergeReportedStatus, usageFromMetrics } from '@outpost/shared';
import type { MetricsSample, ReportedStatus } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc } from '../resources/resource-table.js';

type StatusEdit = (status: Doc) => Doc;

/**
 * Collects status edits from many agents and writes them in one SQLite transaction per flush, so thousands of
 * reports a second cost a few commits, not thousands. Edits of one device apply in arrival order.
 *
 * A connection-state change is never merged with the edits after it: each one ends its device's current
 * write, so a connection that comes and goes within one flush still shows watchers CONNECTED, then
 * DISCONNECTED (as separate changes), instead of nothing at all.
 */
export class StatusWriter {
  /** per device, its writes in order (the last one takes new edits): the edits of each are applied together */
  private pending = new Map<string, StatusEdit[][]>();
  private timer: NodeJS.Timeout | undefined;
  /** transactions written since start (a server gauge) */
  batches = 0;

  constructor(
    private readonly devices: ResourceHandle,
    private readonly flushDelayMs = 25,
  ) {}

  report(name: string, reported: ReportedStatus): void {
    this.edit(name, false, (status) => mergeReportedStatus(status, reported) as Doc);
  }

  metrics(name: string, sample: MetricsSample): void {
    this.edit(name, false, (status) => ({
      ...status,
      metrics: sample,
      deviceInfo: { ...((status['deviceInfo'] ?? {}) as Doc), usage: usageFromMetrics(sample) },
    }));
  }

  connection(name: string, state: 'CONNECTED' | 'DISCONNECTED', time: string, agent?: Doc): void {
    this.edit(name, true, (status) => {
      const changed = status['connectionStatus'] !== state;
      return {
        ...status,
        connectionStatus: state,
        connectionStatusChangeTime: changed ? time : (status['connectionStatusChangeTime'] ?? time),
        ...(agent ? { agent } : {}),
      };
    });
  }

  /** `endsWrite`: later edits of the device go into a write of their own. */
  private edit(name: string, endsWrite: boolean, edit: StatusEdit): void {
    let writes = this.pending.get(name);
    if (!writes) this.pending.set(name, (writes = [[]]));
    writes[writes.length - 1]?.push(edit);
    if (endsWrite) writes.push([]);
    this.timer ??= setTimeout(() => this.flush(), this.flushDelayMs);
  }

  /** Writes everything pending now, in one transaction. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.batches++;
    // the writes of one device in order, each over what the one before it stored
    this.devices.patchAll(
      [...batch].flatMap(([name, writes]) =>
        writes
          .filter((edits) => edits.length > 0)
          .map(
            (edits) =>
              [
                name,
                (doc: Doc): Doc => ({
                  ...doc,
                  status: edits.reduce((s, edit) => edit(s), (doc['status'] ?? {}) as Doc),
                }),
              ] as const,
          ),
      ),
    );
  }
}
