import type { Slot } from '@outpost/shared';
import { describeBlockers } from '../health/commit-gate.js';
import type { CommitBlocker } from '../health/commit-gate.js';
import { otherSlot } from './boot/boot-backend.js';
import type { BootState } from './boot/boot-backend.js';
import type { OperationImage, OsOperation, OsProgress } from './os-progress.js';
import { compareVersions } from './version-order.js';

/** What the device record asks for (undefined as a whole until a spec is known). */
export interface DesiredOs {
  /** spec.osVersion; undefined when none is set */
  version?: string;
  /** the image the control plane resolved for it; absent when not published for this device type */
  image?: OperationImage;
}

export interface PlannerInput {
  desired: DesiredOs | undefined;
  deviceType: string | undefined;
  boot: Pick<BootState, 'bootId' | 'bootTimeMs' | 'runningSlot' | 'activeSlot' | 'trySlot' | 'lastFailed'>;
  /** the version of the running slot, as its root says */
  runningVersion: string | undefined;
  progress: OsProgress;
  /** the link is up (welcome received) */
  connected: boolean;
  /** the health checks that keep a trial boot from committing (failing, or no verdict yet); none: healthy */
  commitBlockers: readonly CommitBlocker[];
  /** test hook OUTPOST_TEST_NEVER_COMMIT */
  neverCommit: boolean;
  commitTimeoutMs: number;
  now: number;
  /** maintenance windows and update locks; absent: an upgrade may switch and reboot at any time */
  gate?: UpgradeGate;
}

/** What holds back an upgrade's slot switch and reboot (spec.updatePolicy, update locks). */
export interface UpgradeGate {
  /** a maintenance window is open (always true without windows) */
  windowOpen: boolean;
  /** when the open window closes */
  windowClosesAtMs?: number;
  /** when the next window opens */
  nextWindowStartMs?: number;
  /** how many maintenance windows there are */
  windows: number;
  /** spec.updatePolicy.downloadInWindowOnly: the download waits for a window too */
  downloadInWindowOnly: boolean;
  /** the update locks held now */
  heldLocks: readonly { name: string; expiresAtMs: number }[];
}

export type OsReadyReason =
  | 'Converged'
  | 'Pending'
  | 'Downloading'
  | 'Installing'
  | 'Rebooting'
  | 'Verifying'
  | 'RolledBack'
  | 'Failed'
  | 'Unsupported'
  | 'WaitingForWindow'
  | 'WaitingForLocks';

export interface OsReady {
  status: 'True' | 'False';
  reason: OsReadyReason;
  message: string;
}

export type Step =
  /** nothing to do until something changes (or `wakeAtMs`) */
  | { kind: 'idle'; wakeAtMs?: number }
  /** remember a new spec.osVersion: a rolled-back or failed version may be tried again */
  | { kind: 'note-desired'; version: string }
  /** remember the running (committed) slot's version as a good rollback target */
  | { kind: 'note-running'; slot: Slot; version: string }
  /** begin writing `image` into the spare `slot` */
  | { kind: 'start-download'; image: OperationImage; slot: Slot }
  /** continue (resume) the operation's download, then verify it */
  | { kind: 'download' }
  /** the wanted version is retained, known good, in the spare slot: switch to it without a download */
  | { kind: 'start-switch'; version: string; slot: Slot }
  /** ask the bootloader to try the operation's slot once */
  | { kind: 'switch' }
  /** run the on-shutdown hooks and reboot; a trial boot giving up remembers why it did not commit */
  | { kind: 'reboot'; reason: string; notCommitted?: NotCommitted }
  /** commit the running trial slot */
  | { kind: 'commit' }
  /** the trial slot was committed but the progress not yet updated */
  | { kind: 'finish-commit' }
  /** the bootloader fell back from the operation's slot */
  | { kind: 'record-rollback' }
  /** give up on the running trial on purpose (the spec changed): reset the try and reboot */
  | { kind: 'abandon-trial'; reason: string }
  /** forget the operation (abort a download, cancel a requested try) */
  | { kind: 'drop-operation'; reason: string; cancelTry: boolean }
  /** `version` (this artifact of it) cannot be installed: remember it as failed */
  | { kind: 'fail'; message: string; version: string; sha256?: string };

/** Why a trial boot gave up without a commit. */
export interface NotCommitted {
  reason: string;
  /** ids of the health checks failing at the time */
  failingHealthChecks: string[];
}

export interface Plan {
  step: Step;
  /** the OSReady condition while this step runs (unchanged when absent) */
  condition?: OsReady;
}

/** A switch whose reboot does not lead to the trial slot this often is given up. */
export const MAX_SWITCH_REBOOTS = 3;
/** How often an idle trial boot re-checks whether it can commit. */
export const TRIAL_POLL_MS = 1_000;

/**
 * The next step of the A/B upgrade, from the desired version, the boot state and the persisted progress.
 * Pure: every decision of the upgrade engine is here; the executor only carries steps out. Each step
 * changes the persisted progress or the boot state, so planning again after it moves on.
 */
export function planNextStep(input: PlannerInput): Plan {
  const { desired, boot, progress, runningVersion } = input;
  const operation = progress.operation;

  if (desired !== undefined && (desired.version ?? '') !== (progress.desiredVersion ?? '')) {
    return { step: { kind: 'note-desired', version: desired.version ?? '' } };
  }
  if (boot.runningSlot !== boot.activeSlot) return planTrialBoot(input);
  if (operation !== undefined && (operation.phase === 'switching' || operation.phase === 'abandoning')) {
    return planAfterSwitch(input, operation);
  }
  if (operation !== undefined && operation.slot === boot.runningSlot) {
    return drop('the slot being written is the running slot', false);
  }
  const known = progress.slots[boot.runningSlot];
  if (runningVersion !== undefined && (known?.version !== runningVersion || !known.good)) {
    return { step: { kind: 'note-running', slot: boot.runningSlot, version: runningVersion } };
  }
  if (desired === undefined) return { step: { kind: 'idle' } };
  const plan = planConvergence(input, desired);
  if (plan.condition === undefined || desired.version === undefined) return plan;
  return { ...plan, condition: withFailingChecksNote(plan.condition, input.commitBlockers, desired.version) };
}

/** This boot runs a slot that is not committed. */
function planTrialBoot(input: PlannerInput): Plan {
  const { boot, progress, desired } = input;
  const operation = progress.operation?.slot === boot.runningSlot ? progress.operation : undefined;
  const version = operation?.version ?? input.runningVersion ?? 'the new version';
  if (operation?.phase === 'abandoning') {
    return {
      step: { kind: 'abandon-trial', reason: `abandoning the trial of ${version}` },
      condition: rebooting(`abandoning the trial of ${version}; rebooting into slot ${boot.activeSlot}`),
    };
  }
  if (desired?.version && desired.version !== version) {
    return {
      step: { kind: 'abandon-trial', reason: `spec.osVersion is now ${desired.version}` },
      condition: rebooting(
        `spec.osVersion changed to ${desired.version} during the trial of ${version}; ` +
          `rebooting into slot ${boot.activeSlot}`,
      ),
    };
  }
  const blockers = input.commitBlockers;
  const waitingFor = [
    input.connected ? undefined : 'the control plane',
    blockers.length === 0 ? undefined : `the health checks to pass: ${describeBlockers(blockers)}`,
  ].filter((reason): reason is string => reason !== undefined);
  if (waitingFor.length === 0 && !input.neverCommit) {
    return {
      step: { kind: 'commit' },
      condition: verifying(`booted ${version} in slot ${boot.runningSlot}; committing`),
    };
  }
  const why = input.neverCommit
    ? 'commits are disabled (OUTPOST_TEST_NEVER_COMMIT)'
    : `waiting for ${waitingFor.join(' and ')}`;
  const deadline = boot.bootTimeMs + input.commitTimeoutMs;
  if (input.now >= deadline) {
    const reason =
      `slot ${boot.runningSlot} (${version}) was not committed within ` +
      `${Math.round(input.commitTimeoutMs / 1000)} s (${why})`;
    const failingHealthChecks = blockers.filter((b) => b.failing).map((b) => b.id);
    return {
      step: { kind: 'reboot', reason, notCommitted: { reason, failingHealthChecks } },
      condition: rebooting(`${reason}; rebooting into slot ${boot.activeSlot}`),
    };
  }
  return {
    step: { kind: 'idle', wakeAtMs: Math.min(deadline, input.now + TRIAL_POLL_MS) },
    condition: verifying(`booted ${version} in slot ${boot.runningSlot} for a trial; not committed yet: ${why}`),
  };
}

/** A try was requested (or a trial abandoned) and this boot runs the committed slot. */
function planAfterSwitch(input: PlannerInput, operation: OsOperation): Plan {
  const { boot, desired } = input;
  if (boot.runningSlot === operation.slot) return { step: { kind: 'finish-commit' } };
  if (operation.phase === 'abandoning') return drop(`the trial of ${operation.version} was abandoned`, false);
  const sameBoot = boot.bootId === operation.switchBootId;
  if (!sameBoot && boot.lastFailed === operation.slot) {
    return {
      step: { kind: 'record-rollback' },
      condition: rolledBack(operation, input.runningVersion),
    };
  }
  if (desired !== undefined && desired.version !== operation.version) {
    return drop(changedTo(desired.version), true);
  }
  if (operation.reboots >= MAX_SWITCH_REBOOTS) {
    return failStep(
      `the bootloader did not try slot ${operation.slot} (${operation.version}) after ${operation.reboots} reboots`,
      operation.version,
      operation.image?.sha256,
    );
  }
  const held = heldBack(input, `${operation.version} is ready in slot ${operation.slot}`);
  if (held !== undefined) return held;
  if (boot.trySlot === operation.slot) {
    return {
      step: { kind: 'reboot', reason: `switching to ${operation.version} in slot ${operation.slot}` },
      condition: rebooting(`rebooting into ${operation.version} (slot ${operation.slot})`),
    };
  }
  return { step: { kind: 'switch' }, condition: installing(switchMessage(operation)) };
}

/** A committed boot with a known spec: converge on spec.osVersion. */
function planConvergence(input: PlannerInput, desired: DesiredOs): Plan {
  const { boot, progress, runningVersion } = input;
  const operation = progress.operation;
  const wanted = desired.version;
  if (wanted === undefined || wanted === '') {
    if (operation !== undefined) return drop('no OS version is requested', false);
    return idle(converged(`running ${runningVersion ?? 'an unknown version'}; no OS version is requested`));
  }
  if (wanted === runningVersion) {
    if (operation !== undefined) return drop(`spec.osVersion is the running version ${wanted}`, false);
    return idle(converged(`running ${wanted} in slot ${boot.runningSlot}`));
  }
  if (progress.rolledBack?.version === wanted) {
    return idle({
      status: 'False',
      reason: 'RolledBack',
      message: `${progress.rolledBack.message}; not retried until spec.osVersion changes`,
    });
  }
  const failed = progress.failed;
  if (failed?.version === wanted && (desired.image === undefined || desired.image.sha256 === failed.sha256)) {
    return idle({ status: 'False', reason: 'Failed', message: failed.message });
  }
  if (operation !== undefined) {
    const republished =
      desired.image !== undefined && operation.image !== undefined && desired.image.sha256 !== operation.image.sha256;
    if (operation.version !== wanted || republished) return drop(changedTo(wanted), false);
    if (operation.phase === 'downloading') {
      const notYet = downloadHeldBack(input, wanted);
      if (notYet !== undefined) return notYet;
      return { step: { kind: 'download' }, condition: downloading(wanted, operation) };
    }
    const held = heldBack(input, `${wanted} is ready in slot ${operation.slot}`);
    if (held !== undefined) return held;
    return { step: { kind: 'switch' }, condition: installing(switchMessage(operation)) };
  }
  const spare = otherSlot(boot.runningSlot);
  const retained = progress.slots[spare];
  if (retained?.good === true && retained.version === wanted) {
    const held = heldBack(input, `${wanted} is retained in slot ${spare}`);
    if (held !== undefined) return held;
    return {
      step: { kind: 'start-switch', version: wanted, slot: spare },
      condition: installing(`switching to ${wanted}, retained in slot ${spare}`),
    };
  }
  const image = desired.image;
  if (image === undefined) {
    return idle({
      status: 'False',
      reason: 'Pending',
      message: `version ${wanted} is not published for device type ${input.deviceType ?? '(unknown)'}`,
    });
  }
  if (image.version !== wanted) {
    return failStep(`the server offered image ${image.version} for version ${wanted}`, wanted, image.sha256);
  }
  if (input.deviceType !== undefined && typeId(image.deviceType) !== typeId(input.deviceType)) {
    return failStep(
      `refused ${wanted}: its image is for device type ${image.deviceType}, and this device is a ` +
        `${input.deviceType} (nothing was downloaded)`,
      wanted,
      image.sha256,
    );
  }
  const minimum = image.minimumPreviousVersion;
  if (minimum !== undefined) {
    const order = runningVersion === undefined ? undefined : compareVersions(runningVersion, minimum);
    if (order === undefined || order < 0) {
      return failStep(
        `refused ${wanted}: its minimumPreviousVersion is ${minimum} and this device runs ` +
          `${runningVersion ?? 'an unknown version'}; upgrade through ${minimum} first (nothing was downloaded)`,
        wanted,
        image.sha256,
      );
    }
  }
  const notYet = downloadHeldBack(input, wanted);
  if (notYet !== undefined) return notYet;
  return {
    step: { kind: 'start-download', image, slot: spare },
    condition: { status: 'False', reason: 'Downloading', message: `downloading ${wanted}: 0%` },
  };
}

/**
 * Idle while no maintenance window is open or an update lock is held: an upgrade switches slots and reboots only
 * inside a window and with no lock held. Wakes when the window opens or the first lock expires.
 */
function heldBack(input: PlannerInput, ready: string): Plan | undefined {
  const gate = input.gate;
  if (gate === undefined) return undefined;
  const wakes = gate.heldLocks.map((lock) => lock.expiresAtMs);
  const locks =
    gate.heldLocks.length === 0
      ? ''
      : `update lock${gate.heldLocks.length === 1 ? '' : 's'} ${gate.heldLocks
          .map((lock) => `${lock.name} (until ${new Date(lock.expiresAtMs).toISOString()})`)
          .join(', ')} held`;
  if (!gate.windowOpen) {
    if (gate.nextWindowStartMs !== undefined) wakes.push(gate.nextWindowStartMs);
    const next =
      gate.nextWindowStartMs === undefined
        ? 'no maintenance window opens within five years'
        : `waiting for the maintenance window at ${new Date(gate.nextWindowStartMs).toISOString()}`;
    return waiting('WaitingForWindow', `${ready}; ${next}${locks === '' ? '' : `; ${locks}`}`, wakes);
  }
  if (locks !== '') return waiting('WaitingForLocks', `${ready}; waiting while ${locks}`, wakes);
  return undefined;
}

/** Idle while spec.updatePolicy.downloadInWindowOnly keeps the download of `version` for a window. */
function downloadHeldBack(input: PlannerInput, version: string): Plan | undefined {
  const gate = input.gate;
  if (gate === undefined || !gate.downloadInWindowOnly || gate.windowOpen) return undefined;
  const start = gate.nextWindowStartMs;
  const next =
    start === undefined
      ? 'no maintenance window opens within five years'
      : `the maintenance window at ${new Date(start).toISOString()}`;
  return waiting('WaitingForWindow', `${version} is downloaded only in a maintenance window; waiting for ${next}`, [
    ...(start === undefined ? [] : [start]),
  ]);
}

const waiting = (reason: OsReadyReason, message: string, wakes: readonly number[]): Plan => ({
  step: wakes.length === 0 ? { kind: 'idle' } : { kind: 'idle', wakeAtMs: Math.min(...wakes) },
  condition: { status: 'False', reason, message },
});

/** `x` from `x` or `deviceTypes/x`. */
const typeId = (deviceType: string): string => deviceType.replace(/^deviceTypes\//, '');

/** "downloading 1.1.0: 42%" */
export const downloadMessage = (version: string, bytes: number, size: number): string =>
  `downloading ${version}: ${size > 0 ? Math.floor((bytes * 100) / size) : 0}%`;

const downloading = (version: string, operation: OsOperation): OsReady => ({
  status: 'False',
  reason: 'Downloading',
  message: downloadMessage(version, operation.bytesWritten, operation.image?.size ?? 0),
});

const switchMessage = (operation: OsOperation): string => `switching to ${operation.version} in slot ${operation.slot}`;

const changedTo = (version: string | undefined): string =>
  version === undefined || version === '' ? 'spec.osVersion was cleared' : `spec.osVersion changed to ${version}`;

/** Why the bootloader came back from the operation's slot: the reason its trial gave up, when it got that far. */
export const rolledBackMessage = (
  operation: Pick<OsOperation, 'version' | 'slot' | 'notCommitted'>,
  running: string | undefined,
): string => {
  const { version, slot, notCommitted } = operation;
  const back = `running ${running ?? 'the retained version'}`;
  if (notCommitted === undefined) return `${version} did not boot or was not committed in slot ${slot}; ${back}`;
  return `${version} was rolled back: ${notCommitted.reason}; ${back}`;
};

const rolledBack = (operation: OsOperation, running: string | undefined): OsReady => ({
  status: 'False',
  reason: 'RolledBack',
  message: rolledBackMessage(operation, running),
});

/** Reasons of the steps before the trial boot, when a failing health check is worth knowing about. */
const BEFORE_TRIAL: ReadonlySet<OsReadyReason> = new Set([
  'Pending',
  'Downloading',
  'Installing',
  'WaitingForWindow',
  'WaitingForLocks',
]);

/**
 * The condition, before the trial boot of `version`, with a note naming the health checks that already fail:
 * the trial boot will not commit while one does.
 */
export function withFailingChecksNote(
  condition: OsReady,
  blockers: readonly CommitBlocker[],
  version: string,
): OsReady {
  const failing = blockers.filter((b) => b.failing);
  if (!BEFORE_TRIAL.has(condition.reason) || failing.length === 0) return condition;
  const subject =
    failing.length === 1
      ? `health check ${describeBlockers(failing)} already fails`
      : `health checks ${describeBlockers(failing)} already fail`;
  return {
    ...condition,
    message: `${condition.message}; ${subject}: a trial boot of ${version} does not commit while a health check fails`,
  };
}

const converged = (message: string): OsReady => ({ status: 'True', reason: 'Converged', message });
const installing = (message: string): OsReady => ({ status: 'False', reason: 'Installing', message });
const rebooting = (message: string): OsReady => ({ status: 'False', reason: 'Rebooting', message });
const verifying = (message: string): OsReady => ({ status: 'False', reason: 'Verifying', message });
const idle = (condition: OsReady): Plan => ({ step: { kind: 'idle' }, condition });
const drop = (reason: string, cancelTry: boolean): Plan => ({ step: { kind: 'drop-operation', reason, cancelTry } });
const failStep = (message: string, version: string, sha256: string | undefined): Plan => ({
  step: sha256 === undefined ? { kind: 'fail', message, version } : { kind: 'fail', message, version, sha256 },
  condition: { status: 'False', reason: 'Failed', message },
});

/** The condition of a device whose OS the agent does not manage (spec 000 rule 3). */
export const UNSUPPORTED: OsReady = {
  status: 'True',
  reason: 'Unsupported',
  message: 'OS management is disabled: this agent runs on a Linux it does not manage (boot backend "none")',
};
