import { MAX_REPORTED_LOCKS, updatePolicySchema } from '@outpost/shared';
import type { DesiredDevice, MaintenanceStatus, ReportedStatus } from '@outpost/shared';
import { withHttpScheme } from '../config/register-device.js';
import type { ConnectVia } from '../config-apply/proxy/proxy-route.js';
import { commitBlockers } from '../health/commit-gate.js';
import type { CommitBlocker } from '../health/commit-gate.js';
import { createBackoff } from '../retry/backoff.js';
import type { Backoff, BackoffPolicy } from '../retry/backoff.js';
import { heldAt } from '../locks/lock-lease.js';
import type { UpdateLock } from '../locks/lock-lease.js';
import type { Logger } from '../logging/logger.js';
import type { ConditionUpdate } from '../metrics/conditions.js';
import type { Power, ShutdownHooks } from '../power/power.js';
import type { CronJobs } from '../schedule/cron-jobs.js';
import { windowRules, windowState } from '../schedule/maintenance-windows.js';
import type { WindowRule } from '../schedule/maintenance-windows.js';
import type { BootBackend, BootState } from './boot/boot-backend.js';
import { isTrialBoot } from './boot/boot-backend.js';
import { ArtifactError } from './download/artifact-error.js';
import { downloadImage } from './download/image-download.js';
import type { FreeSpace } from './download/free-space.js';
import type { ImageFetch, ImageFetcher } from './download/image-fetcher.js';
import { downloadMessage, planNextStep, rolledBackMessage, withFailingChecksNote } from './os-planner.js';
import type { DesiredOs, OsReady, PlannerInput, Step, UpgradeGate } from './os-planner.js';
import type { OsOperation, OsProgress, OsProgressStore } from './os-progress.js';
import { committedVersion, osUpdateStatus } from './os-status.js';
import type { StepBoundary } from './step-boundaries.js';
import { checkImageSignature } from './trust/image-signature.js';
import type { DiskUnlockGuard } from './unlock/unlock-keeper.js';
import { loadTrustedKeys } from './trust/trusted-keys.js';

/** The part of the agent link the updater needs. */
export interface OsUpdaterLink {
  readonly connected: boolean;
  onConnected(listener: () => void): () => void;
  onDisconnected(listener: () => void): () => void;
}

/** The part of the status reporter the updater needs. */
export interface OsUpdaterReporter {
  readonly current: ReportedStatus;
  report(partial: ReportedStatus): void;
  setCondition(update: ConditionUpdate): void;
  /** sends the status now, unthrottled (before a reboot takes the link down) */
  resend(): void;
}

export interface OsUpdaterOptions {
  backend: BootBackend;
  store: OsProgressStore;
  power: Power;
  runShutdownHooks: ShutdownHooks;
  link: OsUpdaterLink;
  reporter: OsUpdaterReporter;
  /** the control plane's base URL: image URLs are relative to it */
  server: string;
  /** PEM of the CA certificates trusted for the server's image downloads (--ca-file), instead of the system's */
  ca?: string;
  /** how image downloads are connected (through the device's proxy); default directly */
  connect?: ConnectVia;
  /** the device credential, read before every download request */
  credential: () => Promise<string>;
  /** folders whose `*.pub` files are the trusted signing keys */
  trustDirs: readonly string[];
  deviceType: string | undefined;
  /** an uncommitted trial boot reboots (into the fallback) after this long */
  commitTimeoutMs: number;
  /** test hook OUTPOST_TEST_NEVER_COMMIT */
  neverCommit?: boolean;
  logger: Logger;
  /** the committed version changed: persist it (agent state) */
  onCommittedVersion?: (version: string) => Promise<void>;
  /** the last desired device, persisted, to converge on before the server answers */
  initialDesired?: DesiredDevice;
  /** fault-injection seam: called when a step boundary is durable */
  atBoundary?: (boundary: StepBoundary) => Promise<void> | void;
  freeSpace?: FreeSpace;
  /** brings an image into its slot and verifies it; default: download from `server`, check sha256 and signature */
  fetchImage?: ImageFetcher;
  /** OSReady download progress at most this often; default 2 s */
  progressIntervalMs?: number;
  /** an idle updater re-reads the boot state this often anyway; default 30 s */
  idleRecheckMs?: number;
  download?: { checkpointIntervalMs?: number; idleTimeoutMs?: number; backoff?: BackoffPolicy };
  /** delays after a step failed unexpectedly; default 1 s doubling to 5 min */
  errorBackoff?: BackoffPolicy;
  /** the update locks on the device (absent: none can be held) */
  updateLocks?: { list(): Promise<UpdateLock[]>; watch?(onChange: () => void): () => void };
  /** node-cron jobs: each maintenance window's opening wakes the updater at once (else the idle recheck sees it) */
  cronJobs?: CronJobs;
  /** the TPM unlock binding of an encrypted data partition, kept in step with the slots (absent: not encrypted) */
  diskUnlock?: DiskUnlockGuard;
  now?: () => number;
}

/** The names of the node-cron jobs of maintenance window openings. */
const WINDOW_JOB_PREFIX = 'maintenance-window-';

/** What the executor knows at the start of a step. */
interface Snapshot {
  input: PlannerInput;
  boot: BootState;
}

/**
 * Carries out the planner's steps one after the other, persisting progress atomically at each, and
 * reports OSReady, status.osUpdate and status.deviceInfo.osVersion. It plans again after every step, on
 * every new spec, on (re)connection, and at least every `idleRecheckMs`.
 */
export class OsUpdater {
  private desired: DesiredOs | undefined;
  /** spec.updatePolicy's windows and downloadInWindowOnly */
  private windows: WindowRule[] = [];
  private downloadInWindowOnly = false;
  private running = false;
  /** a reboot was requested: nothing more to do in this boot */
  private halted = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private wakeRequested = false;
  private activeDownload: { version: string; sha256: string; controller: AbortController } | undefined;
  private condition: OsReady | undefined;
  private reportedVersion: string | undefined;
  private trialBoundaryPassed = false;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly errorBackoff: Backoff;

  constructor(private readonly options: OsUpdaterOptions) {
    this.errorBackoff = createBackoff(options.errorBackoff ?? { baseMs: 1_000, capMs: 5 * 60_000 });
    if (options.initialDesired !== undefined) {
      this.desired = desiredOsOf(options.initialDesired);
      this.setUpdatePolicy(options.initialDesired);
    }
  }

  /** Reports the current version and slots once, before the link starts (so the first status is right). */
  async prime(): Promise<void> {
    try {
      this.reportState(await this.snapshot());
    } catch (err) {
      this.options.logger.error({ err }, 'cannot read the boot state');
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleWindowOpenings();
    this.unsubscribe.push(
      this.options.link.onConnected(() => this.wake()),
      this.options.link.onDisconnected(() => this.wake()),
    );
    try {
      const unwatch = this.options.updateLocks?.watch?.(() => this.wake());
      if (unwatch !== undefined) this.unsubscribe.push(unwatch);
    } catch (err) {
      this.options.logger.warn({ err }, 'cannot watch the update locks: they are read at each recheck');
    }
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    for (const name of this.options.cronJobs?.names(WINDOW_JOB_PREFIX) ?? []) this.options.cronJobs?.remove(name);
    this.activeDownload?.controller.abort(new Error('the agent is stopping'));
    this.wake();
    await this.loop;
  }

  /** A health check's condition changed: plan again (a trial boot may commit now; the reported checks change). */
  healthChanged(): void {
    this.wake();
  }

  /** A new desired device from the server. */
  setDesired(device: DesiredDevice): void {
    const desired = desiredOsOf(device);
    this.desired = desired;
    this.setUpdatePolicy(device);
    const download = this.activeDownload;
    if (
      download !== undefined &&
      (desired.version !== download.version ||
        (desired.image !== undefined && desired.image.sha256 !== download.sha256))
    ) {
      download.controller.abort(new Error(`spec.osVersion changed to ${desired.version ?? '(none)'}`));
    }
    this.wake();
  }

  /** spec.updatePolicy; one the control plane should have refused counts as none (the upgrade is not held back). */
  private setUpdatePolicy(device: DesiredDevice): void {
    const parsed = updatePolicySchema.safeParse(device.spec['updatePolicy'] ?? {});
    if (!parsed.success) this.options.logger.warn('spec.updatePolicy is malformed: ignored');
    const policy = parsed.success ? parsed.data : {};
    const { rules, rejected } = windowRules(policy.maintenanceWindows);
    if (rejected.length > 0) this.options.logger.warn({ rejected }, 'maintenance windows ignored');
    this.windows = rules;
    this.downloadInWindowOnly = policy.downloadInWindowOnly === true;
    this.scheduleWindowOpenings();
  }

  /** A node-cron job per window, waking the updater when it opens (started with the updater). */
  private scheduleWindowOpenings(): void {
    const jobs = this.options.cronJobs;
    if (jobs === undefined || !this.running) return;
    for (const name of jobs.names(WINDOW_JOB_PREFIX)) jobs.remove(name);
    this.windows.forEach((rule, index) => {
      jobs.set({
        name: `${WINDOW_JOB_PREFIX}${index}`,
        schedule: rule.source.schedule,
        timeZone: rule.timeZone,
        run: () => this.wake(),
      });
    });
  }

  private async run(): Promise<void> {
    while (this.running && !this.halted) {
      try {
        const snapshot = await this.snapshot();
        this.reportState(snapshot);
        await this.options.diskUnlock?.reconcile(snapshot.boot, snapshot.input.progress.operation);
        if (isTrialBoot(snapshot.boot) && !this.trialBoundaryPassed) {
          this.trialBoundaryPassed = true;
          await this.boundary('trial-boot');
        }
        const plan = planNextStep(snapshot.input);
        if (plan.condition !== undefined) this.setCondition(plan.condition);
        if (plan.step.kind === 'idle') {
          // never past the recheck: a released update lock or a changed boot state is seen within it
          const recheckAtMs = this.now() + (this.options.idleRecheckMs ?? 30_000);
          await this.sleepUntil(Math.min(plan.step.wakeAtMs ?? recheckAtMs, recheckAtMs));
          continue;
        }
        await this.execute(plan.step, snapshot);
        this.errorBackoff.reset();
      } catch (err) {
        if (!this.running) break;
        const delayMs = this.errorBackoff.next();
        const message = err instanceof Error ? err.message : String(err);
        this.options.logger.error({ err, retryInMs: delayMs }, 'an OS update step failed; retrying');
        const condition = this.condition;
        if (condition !== undefined) {
          this.options.reporter.setCondition({
            type: 'OSReady',
            ...condition,
            message: `${condition.message} (retrying: ${message})`,
          });
        }
        await this.sleepUntil(this.now() + delayMs);
      }
    }
  }

  private async snapshot(): Promise<Snapshot> {
    const { backend, store } = this.options;
    const [boot, runningVersion, progress, locks] = await Promise.all([
      backend.readState(),
      backend.runningVersion(),
      store.read(),
      this.options.updateLocks?.list() ?? [],
    ]);
    const now = this.now();
    const window = windowState(this.windows, now);
    const gate: UpgradeGate = {
      windows: window.windows,
      windowOpen: window.open,
      ...(window.closesAtMs === undefined ? {} : { windowClosesAtMs: window.closesAtMs }),
      ...(window.nextStartMs === undefined ? {} : { nextWindowStartMs: window.nextStartMs }),
      downloadInWindowOnly: this.downloadInWindowOnly,
      heldLocks: heldAt(locks, now),
    };
    const input: PlannerInput = {
      desired: this.desired,
      deviceType: this.options.deviceType,
      boot,
      runningVersion,
      progress,
      connected: this.options.link.connected,
      commitBlockers: this.commitBlockers(),
      neverCommit: this.options.neverCommit ?? false,
      commitTimeoutMs: this.options.commitTimeoutMs,
      now,
      gate,
    };
    return { input, boot };
  }

  private commitBlockers(): CommitBlocker[] {
    return commitBlockers(this.options.reporter.current.conditions ?? []);
  }

  private reportState({ input, boot }: Snapshot): void {
    const { reporter, backend } = this.options;
    const version = committedVersion(boot, input.progress, input.runningVersion);
    reporter.report({
      osUpdate: osUpdateStatus(backend.name, boot, input.progress, input.runningVersion, input.commitBlockers),
      ...(input.gate === undefined ? {} : { maintenance: maintenanceStatus(input.gate) }),
      ...(version === undefined ? {} : { deviceInfo: { osVersion: version } }),
    });
    if (version !== undefined && version !== this.reportedVersion) {
      this.reportedVersion = version;
      void this.options
        .onCommittedVersion?.(version)
        .catch((err: unknown) => this.options.logger.warn({ err }, 'cannot record the committed OS version'));
    }
  }

  /** A condition on the way to the trial boot of `version`, naming the health checks that already fail. */
  private setBeforeTrialCondition(version: string, condition: OsReady): void {
    this.setCondition(withFailingChecksNote(condition, this.commitBlockers(), version));
  }

  private setCondition(condition: OsReady): void {
    this.condition = condition;
    this.options.reporter.setCondition({ type: 'OSReady', ...condition });
  }

  private async execute(step: Step, { input, boot }: Snapshot): Promise<void> {
    const { backend, logger } = this.options;
    const progress = input.progress;
    const operation = progress.operation;
    if (step.kind !== 'note-desired' && step.kind !== 'note-running') logger.info({ step }, `OS update: ${step.kind}`);
    switch (step.kind) {
      case 'note-desired': {
        const { rolledBack: _rolledBack, failed: _failed, ...rest } = progress;
        await this.save({ ...rest, desiredVersion: step.version });
        return;
      }
      case 'note-running':
        await this.save({
          ...progress,
          slots: { ...progress.slots, [step.slot]: { version: step.version, good: true } },
        });
        return;
      case 'start-download':
        await backend.setSlotVersion(step.slot, undefined);
        await this.save({
          ...progress,
          slots: { ...progress.slots, [step.slot]: { good: false } },
          operation: {
            version: step.image.version,
            slot: step.slot,
            phase: 'downloading',
            image: step.image,
            bytesWritten: 0,
            reboots: 0,
          },
        });
        await this.boundary('download-started');
        return;
      case 'download':
        if (operation !== undefined) await this.download(progress, operation);
        return;
      case 'start-switch':
        await this.save({
          ...progress,
          operation: { version: step.version, slot: step.slot, phase: 'verified', bytesWritten: 0, reboots: 0 },
        });
        return;
      case 'switch': {
        if (operation === undefined) return;
        const refused = await this.options.diskUnlock?.prepareSwitch(boot, operation.slot);
        if (refused !== undefined) {
          const message = `refused to switch to ${operation.version} in slot ${operation.slot}: ${refused}`;
          await this.recordFailure(progress, message, operation.version, operation.image?.sha256);
          return;
        }
        await backend.resetTry();
        await this.save({ ...progress, operation: { ...operation, phase: 'switching', switchBootId: boot.bootId } });
        await this.boundary('switch-persisted');
        await backend.tryOnce(operation.slot);
        await this.boundary('switch-requested');
        return;
      }
      case 'reboot':
        if (operation !== undefined) {
          const { notCommitted } = step;
          await this.save({
            ...progress,
            operation: {
              ...operation,
              reboots: operation.reboots + 1,
              ...(notCommitted === undefined ? {} : { notCommitted }),
            },
          });
        }
        await this.reboot(step.reason);
        return;
      case 'abandon-trial':
        if (operation !== undefined && operation.slot === boot.runningSlot && operation.phase !== 'abandoning') {
          await this.save({ ...progress, operation: { ...operation, phase: 'abandoning' } });
        }
        await backend.resetTry();
        await this.reboot(step.reason);
        return;
      case 'commit':
        await backend.commit(boot.runningSlot);
        await this.boundary('committed');
        await this.finishCommit(input);
        return;
      case 'finish-commit':
        await this.finishCommit(input);
        return;
      case 'record-rollback':
        if (operation === undefined) return;
        await this.recordRollback(input, operation);
        return;
      case 'drop-operation':
        if (step.cancelTry) await backend.resetTry();
        if (operation !== undefined) {
          logger.info({ version: operation.version, reason: step.reason }, 'dropped the OS update operation');
          await this.save(withoutOperation(progress, operation));
        }
        return;
      case 'fail':
        if (operation?.phase === 'switching') await backend.resetTry();
        await this.recordFailure(progress, step.message, step.version, step.sha256);
        return;
    }
  }

  private async download(progress: OsProgress, operation: OsOperation): Promise<void> {
    const { backend, logger } = this.options;
    const image = operation.image;
    if (image === undefined) {
      await this.recordFailure(progress, `nothing to download for ${operation.version}`, operation.version);
      return;
    }
    const controller = new AbortController();
    this.activeDownload = { version: operation.version, sha256: image.sha256, controller };
    const interval = this.options.progressIntervalMs ?? 2_000;
    let lastReport = this.now();
    let persisted = operation.bytesWritten;
    const showProgress = (bytes: number, note?: string): void => {
      if (note === undefined && this.now() - lastReport < interval) return;
      lastReport = this.now();
      const message = downloadMessage(operation.version, bytes, image.size);
      this.setBeforeTrialCondition(operation.version, {
        status: 'False',
        reason: 'Downloading',
        message: note === undefined ? message : `${message} (${note})`,
      });
    };
    try {
      const fetchImage = this.options.fetchImage ?? ((fetch: ImageFetch) => this.downloadAndVerify(fetch));
      await fetchImage({
        version: operation.version,
        image,
        target: backend.slotTarget(operation.slot),
        resumeFrom: operation.bytesWritten,
        signal: controller.signal,
        onProgress: (bytes) => showProgress(bytes),
        onCheckpoint: async (bytes) => {
          showProgress(bytes); // also while the server stalls: the last throttled progress is caught up
          if (bytes <= persisted) return;
          persisted = bytes;
          await this.save({ ...progress, operation: { ...operation, bytesWritten: bytes } });
          await this.boundary('download-checkpoint');
        },
        onRetry: (err, delayMs, bytes) => {
          logger.warn({ err: err.message, retryInMs: delayMs, bytes }, 'the image download failed; resuming');
          showProgress(bytes, `${err.message}; resuming in ${Math.ceil(delayMs / 1000)} s`);
        },
        onVerifying: () =>
          this.setBeforeTrialCondition(operation.version, {
            status: 'False',
            reason: 'Installing',
            message: `verifying ${operation.version}`,
          }),
      });
      await backend.setSlotVersion(operation.slot, operation.version);
      await this.save({
        ...progress,
        slots: { ...progress.slots, [operation.slot]: { version: operation.version, good: false } },
        operation: { ...operation, phase: 'verified', bytesWritten: image.size },
      });
      await this.boundary('downloaded');
    } catch (err) {
      if (err instanceof ArtifactError) {
        logger.error({ version: operation.version, error: err.message }, 'the OS image cannot be installed');
        await this.recordFailure(progress, err.message, operation.version, image.sha256);
        return;
      }
      if (controller.signal.aborted) return; // the spec changed (or the agent stops): plan again
      throw err;
    } finally {
      this.activeDownload = undefined;
    }
  }

  /** The default ImageFetcher: streams the image from the control plane, then checks its sha256 and signature. */
  private async downloadAndVerify(fetch: ImageFetch): Promise<void> {
    const { image, version } = fetch;
    const digest = await downloadImage({
      url: new URL(image.url, withHttpScheme(this.options.server)),
      authorization: async () => `Bearer ${await this.options.credential()}`,
      image,
      target: fetch.target,
      resumeFrom: fetch.resumeFrom,
      signal: fetch.signal,
      ...(this.options.freeSpace === undefined ? {} : { freeSpace: this.options.freeSpace }),
      ...this.options.download,
      ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
      ...(this.options.connect === undefined ? {} : { connect: this.options.connect }),
      onProgress: fetch.onProgress,
      onCheckpoint: fetch.onCheckpoint,
      onRetry: fetch.onRetry,
    });
    fetch.onVerifying();
    const actual = digest.toString('hex');
    if (actual !== image.sha256) {
      throw new ArtifactError(`the image of ${version} has sha256 ${actual}, not the published ${image.sha256}`);
    }
    const trusted = await loadTrustedKeys(this.options.trustDirs);
    for (const problem of trusted.problems) this.options.logger.warn(problem);
    const check = checkImageSignature(version, digest, image.signature, trusted.keys, this.options.trustDirs);
    if (!check.ok) throw new ArtifactError(check.message);
    this.options.logger.info({ version, key: check.key.source }, 'the image is verified');
  }

  private async finishCommit(input: PlannerInput): Promise<void> {
    const { progress, boot } = input;
    const operation = progress.operation;
    const version =
      input.runningVersion ?? (operation?.slot === boot.runningSlot ? operation.version : undefined) ?? '';
    const { operation: _done, ...rest } = progress;
    const next: OsProgress = {
      ...rest,
      slots: { ...progress.slots, [boot.runningSlot]: { version, good: true } },
    };
    if (next.rolledBack?.version === version) delete next.rolledBack;
    if (next.failed?.version === version) delete next.failed;
    await this.save(next);
    this.options.logger.info({ version, slot: boot.runningSlot }, 'committed the new OS version');
    await this.boundary('converged');
  }

  private async recordRollback(input: PlannerInput, operation: OsOperation): Promise<void> {
    const message = rolledBackMessage(operation, input.runningVersion);
    this.options.logger.warn({ version: operation.version, slot: operation.slot }, message);
    const { operation: _done, ...rest } = input.progress;
    const failingHealthChecks = operation.notCommitted?.failingHealthChecks ?? [];
    await this.save({
      ...rest,
      slots: { ...rest.slots, [operation.slot]: { version: operation.version, good: false } },
      rolledBack: {
        version: operation.version,
        slot: operation.slot,
        message,
        ...(failingHealthChecks.length === 0 ? {} : { failingHealthChecks }),
      },
    });
  }

  private async recordFailure(progress: OsProgress, message: string, version: string, sha256?: string): Promise<void> {
    const operation = progress.operation;
    const next = operation === undefined ? { ...progress } : withoutOperation(progress, operation);
    next.failed = sha256 === undefined ? { version, message } : { version, sha256, message };
    await this.save(next);
    this.setCondition({ status: 'False', reason: 'Failed', message });
  }

  private async reboot(reason: string): Promise<void> {
    await this.options.runShutdownHooks();
    await this.boundary('hooks-ran');
    this.options.logger.info({ reason }, 'rebooting');
    this.options.reporter.resend();
    this.halted = true;
    try {
      await this.options.power.reboot();
    } catch (err) {
      this.halted = false;
      throw err;
    }
  }

  private save(progress: OsProgress): Promise<void> {
    return this.options.store.write(progress);
  }

  private async boundary(boundary: StepBoundary): Promise<void> {
    await this.options.atBoundary?.(boundary);
  }

  private wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async sleepUntil(timeMs: number): Promise<void> {
    if (this.wakeRequested || !this.running) {
      this.wakeRequested = false;
      return;
    }
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      timer = setTimeout(done, Math.max(0, timeMs - this.now()));
      this.wakeUp = done;
    });
    this.wakeRequested = false;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}

/** The desired OS of a desired device. */
export function desiredOsOf(device: DesiredDevice): DesiredOs {
  const desired: DesiredOs = {};
  const version = device.spec.osVersion;
  if (version !== undefined && version !== '') desired.version = version;
  if (device.osImage !== undefined) desired.image = device.osImage;
  return desired;
}

/**
 * The progress without its operation. A slot an image was written to holds it (complete or not) but is no
 * rollback target until booted; a retained slot the operation only switched to is left as it was.
 */
function withoutOperation(progress: OsProgress, operation: OsOperation): OsProgress {
  const { operation: _dropped, ...rest } = progress;
  if (operation.image === undefined) return rest;
  const complete = operation.phase !== 'downloading';
  return {
    ...rest,
    slots: {
      ...rest.slots,
      [operation.slot]: complete ? { version: operation.version, good: false } : { good: false },
    },
  };
}

/** status.maintenance from the gate the planner saw. */
function maintenanceStatus(gate: UpgradeGate): MaintenanceStatus {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    windows: gate.windows,
    windowOpen: gate.windowOpen,
    ...(gate.windowClosesAtMs === undefined ? {} : { windowClosesAt: iso(gate.windowClosesAtMs) }),
    ...(gate.nextWindowStartMs === undefined ? {} : { nextWindowStart: iso(gate.nextWindowStartMs) }),
    heldLocks: gate.heldLocks
      .slice(0, MAX_REPORTED_LOCKS)
      .map((lock) => ({ name: lock.name, expiresAt: iso(lock.expiresAtMs) })),
  };
}
