import { mergeReportedStatus } from '@outpost/shared';
import type { AgentMessage, ReportedStatus } from '@outpost/shared';
import { upsertCondition } from './conditions.js';
import type { ConditionUpdate } from './conditions.js';
import { deepEqual } from './deep-equal.js';

/** The part of the link the reporter needs. */
export interface StatusLink {
  readonly connected: boolean;
  send(message: AgentMessage): boolean;
}

export interface StatusReporterOptions {
  link: StatusLink;
  /** at most one status message per this interval; later changes are coalesced into one trailing send */
  minIntervalMs?: number;
  now?: () => Date;
}

/**
 * Holds the device's reported status and sends it only when its content changed (deep compare),
 * throttled. While offline it keeps the latest status; `resend` sends it whole after a reconnect.
 */
export class StatusReporter {
  private status: ReportedStatus = {};
  private lastSent: ReportedStatus | undefined;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private seq = 0;
  private trailing: NodeJS.Timeout | undefined;

  constructor(private readonly options: StatusReporterOptions) {}

  get current(): ReportedStatus {
    return this.status;
  }

  /** Merges a partial status (deviceInfo one level deep; other members replace) and sends it if it changed. */
  report(partial: ReportedStatus): void {
    this.status = mergeReportedStatus(this.status, partial);
    this.flush();
  }

  /** Sets one condition (e.g. OSReady), keeping its transition time when its status is unchanged. */
  setCondition(update: ConditionUpdate): void {
    this.report({ conditions: upsertCondition(this.status.conditions ?? [], update, this.now()) });
  }

  /** Sends the whole status now, changed or not (after every welcome: the server may have missed changes). */
  resend(): void {
    this.lastSent = undefined;
    this.lastSentAt = Number.NEGATIVE_INFINITY;
    this.flush();
  }

  stop(): void {
    clearTimeout(this.trailing);
    this.trailing = undefined;
  }

  private flush(): void {
    if (!this.options.link.connected || deepEqual(this.status, this.lastSent)) return;
    const waitMs = this.lastSentAt + (this.options.minIntervalMs ?? 1_000) - Date.now();
    // a condition entering a new state (OSReady Pending → Downloading → Rebooting ...) is never coalesced away;
    // only repeated progress within one state waits for the interval
    if (waitMs > 0 && !conditionStatesChanged(this.lastSent, this.status)) {
      this.trailing ??= setTimeout(() => {
        this.trailing = undefined;
        this.flush();
      }, waitMs);
      return;
    }
    clearTimeout(this.trailing);
    this.trailing = undefined;
    const snapshot = this.status;
    if (this.options.link.send({ type: 'status', seq: ++this.seq, ...snapshot })) {
      this.lastSent = snapshot;
      this.lastSentAt = Date.now();
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}

const conditionStates = (status: ReportedStatus | undefined): string =>
  JSON.stringify((status?.conditions ?? []).map((c) => [c.type, c.status, c.reason]));

function conditionStatesChanged(before: ReportedStatus | undefined, after: ReportedStatus): boolean {
  return conditionStates(before) !== conditionStates(after);
}
