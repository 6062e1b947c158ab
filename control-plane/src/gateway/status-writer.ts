import { mergeReportedStatus, usageFromMetrics } from '@outpost/shared';
import type { MetricsSample, ReportedStatus } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc } from '../resources/resource-table.js';

type StatusEdit = (status: Doc) => Doc;

/**
 * Collects status edits from many agents and writes them in one SQLite transaction per flush, so thousands of
 * reports a second cost a few commits, not thousands. Edits of one device apply in arrival order.
 */
export class StatusWriter {
  private pending = new Map<string, StatusEdit[]>();
  private timer: NodeJS.Timeout | undefined;
  /** transactions written since start (a server gauge) */
  batches = 0;

  constructor(
    private readonly devices: ResourceHandle,
    private readonly flushDelayMs = 25,
  ) {}

  report(name: string, reported: ReportedStatus): void {
    this.edit(name, (status) => mergeReportedStatus(status, reported) as Doc);
  }

  metrics(name: string, sample: MetricsSample): void {
    this.edit(name, (status) => ({
      ...status,
      metrics: sample,
      deviceInfo: { ...((status['deviceInfo'] ?? {}) as Doc), usage: usageFromMetrics(sample) },
    }));
  }

  connection(name: string, state: 'CONNECTED' | 'DISCONNECTED', time: string, agent?: Doc): void {
    this.edit(name, (status) => {
      const changed = status['connectionStatus'] !== state;
      return {
        ...status,
        connectionStatus: state,
        connectionStatusChangeTime: changed ? time : (status['connectionStatusChangeTime'] ?? time),
        ...(agent ? { agent } : {}),
      };
    });
  }

  private edit(name: string, edit: StatusEdit): void {
    const list = this.pending.get(name);
    if (list) list.push(edit);
    else this.pending.set(name, [edit]);
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
    this.devices.patchAll(
      [...batch].map(([name, edits]) => [
        name,
        (doc: Doc): Doc => ({ ...doc, status: edits.reduce((s, edit) => edit(s), (doc['status'] ?? {}) as Doc) }),
      ]),
    );
  }
}
