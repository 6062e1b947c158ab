import { SLOTS } from '@outpost/shared';
import type { Slot } from '@outpost/shared';
import type { BootState } from '../boot/boot-backend.js';
import type { OsOperation } from '../os-progress.js';
import type { UnlockBinding } from './unlock-adapter.js';

/** What the unlock planner needs of the boot state. */
export type UnlockBootView = Pick<BootState, 'runningSlot' | 'activeSlot' | 'trySlot'>;

export type UnlockStep = { kind: 'keep' } | { kind: 'seal'; slots: Slot[]; reason: string };

/**
 * The slots whose boot chain must unlock the data now: the committed slot (the bootloader returns to it), the
 * running one, and the slot of a requested or running trial (while the operation is switching or abandoning, or
 * the bootloader holds a try). The committed slot is never dropped before a commit has made another slot the
 * committed one, so a rollback or fallback always boots a chain the policy accepts.
 */
export function requiredSlots(boot: UnlockBootView, operation: OsOperation | undefined): Slot[] {
  const wanted = new Set<Slot>([boot.activeSlot, boot.runningSlot]);
  if (boot.trySlot !== undefined) wanted.add(boot.trySlot);
  if (operation !== undefined && (operation.phase === 'switching' || operation.phase === 'abandoning')) {
    wanted.add(operation.slot);
  }
  return sortedSlots(wanted);
}

/**
 * Whether the policy must be re-sealed to what this boot state needs. Called at every plan of the updater, so
 * an interrupted change (a power cut between a commit and the narrowing) is finished at the next start; sealing
 * the same set twice is never planned (idempotent).
 */
export function planUnlock(
  binding: UnlockBinding,
  boot: UnlockBootView,
  operation: OsOperation | undefined,
): UnlockStep {
  const slots = requiredSlots(boot, operation);
  if (sameSlots(slots, binding.slots)) return { kind: 'keep' };
  const reason =
    slots.length === 1
      ? `slot ${slots[0]} is the committed slot: only its boot chain unlocks`
      : `the boot chains of slots ${slots.join(' and ')} unlock (slot ${boot.activeSlot} is committed)`;
  return { kind: 'seal', slots, reason };
}

/**
 * Before the bootloader is asked to try `trial`: the policy must accept the running slot's chain and the trial's
 * (and the committed slot's, which a fallback returns to).
 */
export function planSwitchUnlock(binding: UnlockBinding, boot: UnlockBootView, trial: Slot): UnlockStep {
  const slots = sortedSlots(new Set([...requiredSlots(boot, undefined), trial]));
  if (sameSlots(slots, binding.slots)) return { kind: 'keep' };
  return {
    kind: 'seal',
    slots,
    reason: `slot ${trial} is about to be tried: the boot chains of slots ${slots.join(' and ')} unlock`,
  };
}

export interface DiskUnlockCondition {
  status: 'True' | 'False';
  reason: 'Bound' | 'Widened' | 'NotUnlocked' | 'Failed' | 'Unsupported';
  message: string;
}

/** DiskUnlock after the policy was checked (and re-sealed if needed). */
export function boundCondition(
  binding: UnlockBinding,
  boundPcrs: readonly number[],
  running: Slot,
  unlockedThisBoot: boolean,
): DiskUnlockCondition {
  const pcrs = `PCR${boundPcrs.length === 1 ? '' : 's'} ${boundPcrs.join(', ')}`;
  const chains = `the boot chain${binding.slots.length === 1 ? '' : 's'} of slot${binding.slots.length === 1 ? '' : 's'} ${binding.slots.join(' and ')}`;
  if (!unlockedThisBoot) {
    return {
      status: 'False',
      reason: 'NotUnlocked',
      message:
        `the TPM did not unlock the data partition at this boot of slot ${running} (its measured boot chain is ` +
        `not one the policy accepted); the policy now accepts ${chains} (${pcrs})`,
    };
  }
  return {
    status: 'True',
    reason: binding.slots.length > 1 ? 'Widened' : 'Bound',
    message: `the data partition unlocks automatically with ${chains} (${pcrs})`,
  };
}

/** DiskUnlock of an agent that does not manage the OS: it leaves encryption alone. */
export const UNLOCK_UNSUPPORTED: DiskUnlockCondition = {
  status: 'True',
  reason: 'Unsupported',
  message: 'the agent does not manage this OS (boot backend "none"): it leaves disk encryption and the TPM alone',
};

const sortedSlots = (slots: ReadonlySet<Slot>): Slot[] => SLOTS.filter((slot) => slots.has(slot));

const sameSlots = (a: readonly Slot[], b: readonly Slot[]): boolean =>
  a.length === b.length && a.every((slot, index) => slot === b[index]);
