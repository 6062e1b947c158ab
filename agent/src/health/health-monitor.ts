import { appliedHealthCheckSchema, healthConditionType } from '@outpost/shared';
import type { AppliedHealthCheck, ReportedStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import type { ConditionUpdate } from '../metrics/conditions.js';
import { checkSettings, initialCheckState, nextCheckState } from './check-state.js';
import type { CheckCondition, CheckResult, CheckSettings, CheckState } from './check-state.js';
import type { Probe } from './probes/probe.js';
import { errorText } from './probes/probe.js';
import { runProbe } from './probes/run-probe.js';

/** The part of the StatusReporter the monitor needs. */
export interface HealthReporter {
  readonly current: ReportedStatus;
  setCondition(update: ConditionUpdate): void;
  report(partial: ReportedStatus): void;
}

export interface HealthMonitorOptions {
  reporter: HealthReporter;
  logger: Logger;
  /** runs one check; default the real probes */
  probe?: Probe;
  /** a check's condition changed or went away (the OS updater's commit decision follows them) */
  onConditionChange?: () => void;
}

interface ScheduledCheck {
  id: string;
  /** the check's definition as received, to notice a change */
  key: string;
  check: AppliedHealthCheck | undefined;
  settings: CheckSettings | undefined;
  state: CheckState | undefined;
  /** the condition last handed to the reporter */
  reported: CheckCondition | undefined;
  timer: NodeJS.Timeout | undefined;
  run: AbortController | undefined;
  stopped: boolean;
}

/**
 * Runs the health checks that apply to this device (the `healthChecks` of the desired device): each on its
 * own interval, never overlapping itself, cut at its timeout; the thresholds decide its condition
 * `Healthy/<id>` (True/Passing, False/Failing or False/Timeout, Unknown/Pending before the first verdict,
 * Unknown/Unsupported for a definition this agent cannot run), which is reported only when it changes.
 * The conditions share the reporter with OSReady; a check that no longer applies takes its condition away.
 */
export class HealthMonitor {
  private readonly checks = new Map<string, ScheduledCheck>();
  private readonly probe: Probe;

  constructor(private readonly options: HealthMonitorOptions) {
    this.probe = options.probe ?? runProbe;
  }

  /** The ids of the checks applied now. */
  get ids(): string[] {
    return [...this.checks.keys()];
  }

  /** Converges on this set of checks: starts new and changed ones, stops the ones gone. */
  apply(checks: readonly unknown[] | undefined): void {
    const wanted = new Map<string, { key: string; check: AppliedHealthCheck | undefined; problem?: string }>();
    for (const raw of checks ?? []) {
      const parsed = appliedHealthCheckSchema.safeParse(raw);
      const id = parsed.success ? parsed.data.id : idOf(raw);
      if (id === undefined || wanted.has(id)) continue;
      wanted.set(
        id,
        parsed.success
          ? { key: JSON.stringify(parsed.data), check: parsed.data }
          : { key: JSON.stringify(raw), check: undefined, problem: parsed.error.issues.map(describeIssue).join('; ') },
      );
    }

    const gone = [...this.checks.values()].filter((c) => !wanted.has(c.id));
    for (const check of gone) this.remove(check);
    if (gone.length > 0) {
      const types = new Set(gone.map((c) => healthConditionType(c.id)));
      const conditions = this.options.reporter.current.conditions ?? [];
      this.options.reporter.report({ conditions: conditions.filter((c) => !types.has(c.type)) });
      this.options.onConditionChange?.();
    }

    for (const [id, next] of wanted) {
      const existing = this.checks.get(id);
      if (existing?.key === next.key) continue;
      if (existing !== undefined) this.remove(existing);
      const scheduled: ScheduledCheck = {
        id,
        key: next.key,
        check: next.check,
        settings: next.check === undefined ? undefined : checkSettings(next.check.spec),
        state: undefined,
        reported: undefined,
        timer: undefined,
        run: undefined,
        stopped: false,
      };
      this.checks.set(id, scheduled);
      if (scheduled.settings === undefined) {
        this.emit(scheduled, { status: 'Unknown', reason: 'Unsupported', message: `cannot run: ${next.problem}` });
        continue;
      }
      scheduled.state = initialCheckState(scheduled.settings);
      this.emit(scheduled, scheduled.state.condition);
      this.schedule(scheduled, 0);
    }
  }

  /** Stops every check (their conditions stay as last reported). */
  stop(): void {
    for (const check of this.checks.values()) this.remove(check);
    this.checks.clear();
  }

  private remove(check: ScheduledCheck): void {
    check.stopped = true;
    clearTimeout(check.timer);
    check.run?.abort();
    this.checks.delete(check.id);
  }

  private schedule(check: ScheduledCheck, delayMs: number): void {
    check.timer = setTimeout(() => void this.runOnce(check), delayMs);
    check.timer.unref();
  }

  private async runOnce(check: ScheduledCheck): Promise<void> {
    const { check: applied, settings } = check;
    if (check.stopped || applied === undefined || settings === undefined || check.state === undefined) return;
    const started = Date.now();
    const controller = new AbortController();
    check.run = controller;
    const result = await this.probeWithTimeout(applied, settings.timeoutMs, controller);
    check.run = undefined;
    if (check.stopped) return;
    check.state = nextCheckState(check.state, result, settings);
    this.emit(check, check.state.condition);
    this.schedule(check, Math.max(0, started + settings.intervalMs - Date.now()));
  }

  private async probeWithTimeout(
    applied: AppliedHealthCheck,
    timeoutMs: number,
    controller: AbortController,
  ): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ healthy: false, reason: 'Timeout', message: `no result within ${timeoutMs / 1000}s` });
      }, timeoutMs);
    });
    const probed = this.probe(applied.spec, controller.signal, timeoutMs).then(
      (outcome): CheckResult => ({
        healthy: outcome.healthy,
        reason: outcome.healthy ? 'Passing' : 'Failing',
        message: outcome.message,
      }),
      (err: unknown): CheckResult => ({ healthy: false, reason: 'Failing', message: errorText(err) }),
    );
    try {
      return await Promise.race([probed, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private emit(check: ScheduledCheck, condition: CheckCondition): void {
    const last = check.reported;
    if (
      last !== undefined &&
      last.status === condition.status &&
      last.reason === condition.reason &&
      last.message === condition.message
    ) {
      return;
    }
    check.reported = condition;
    const type = healthConditionType(check.id);
    this.options.logger.info({ check: check.check?.name ?? check.id, ...condition }, `health check ${type}`);
    this.options.reporter.setCondition({ type, ...condition });
    this.options.onConditionChange?.();
  }
}

function idOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  return `${issue.path.map(String).join('.') || '(check)'}: ${issue.message}`;
}
