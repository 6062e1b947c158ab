import { SLOTS } from '@outpost/shared';
import type { OsUpdateStatus } from '@outpost/shared';
import type { CommitBlocker } from '../health/commit-gate.js';
import { isTrialBoot } from './boot/boot-backend.js';
import type { BootState } from './boot/boot-backend.js';
import type { OsProgress } from './os-progress.js';

/**
 * The version to report as status.deviceInfo.osVersion: the running slot's once committed; during a
 * trial boot, the committed slot's (the trial's version is reported only after its commit).
 */
export function committedVersion(
  boot: Pick<BootState, 'runningSlot' | 'activeSlot'>,
  progress: OsProgress,
  runningVersion: string | undefined,
): string | undefined {
  if (isTrialBoot(boot)) return progress.slots[boot.activeSlot]?.version;
  return runningVersion ?? progress.slots[boot.runningSlot]?.version;
}

/**
 * status.osUpdate: the slots and boot state, for operators and the e2e suite; the health checks failing now
 * (a trial boot does not commit while one does) and the last rolled-back version with why.
 */
export function osUpdateStatus(
  bootBackend: string,
  boot: BootState,
  progress: OsProgress,
  runningVersion: string | undefined,
  blockers: readonly CommitBlocker[],
): OsUpdateStatus {
  const slots: NonNullable<OsUpdateStatus['slots']> = {};
  for (const slot of SLOTS) {
    const version =
      slot === boot.runningSlot ? (runningVersion ?? progress.slots[slot]?.version) : progress.slots[slot]?.version;
    slots[slot] = version === undefined ? {} : { version };
  }
  const status: OsUpdateStatus = {
    bootBackend,
    runningSlot: boot.runningSlot,
    activeSlot: boot.activeSlot,
    slots,
    bootEnv: boot.env,
  };
  if (boot.trySlot !== undefined) status.trySlot = boot.trySlot;
  if (boot.lastFailed !== undefined) status.lastFailed = boot.lastFailed;
  const failing = blockers.filter((b) => b.failing).map((b) => b.id);
  if (failing.length > 0) status.failingHealthChecks = failing;
  if (progress.rolledBack !== undefined) status.rolledBack = progress.rolledBack;
  return status;
}
