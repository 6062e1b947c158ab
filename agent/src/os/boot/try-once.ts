import type { Slot } from '@outpost/shared';

/** The bootloader's A/B variables (grubenv's, as the file backend keeps them too). */
export interface TryOnceEnv {
  activeSlot: Slot;
  trySlot?: Slot;
  /** tries of `trySlot` used so far */
  tryCount: number;
  maxTries: number;
  lastFailed?: Slot;
}

export interface BootChoice {
  slot: Slot;
  /** 0 for a normal boot, N for the N-th try of a trial slot */
  trial: number;
  /** the variables as the bootloader saves them before booting */
  env: TryOnceEnv;
}

/**
 * The A/B selection of the GRUB script in images/ (shared/qemu.md §4): a pending try is booted while
 * tries remain (counting it first); once they are used up the try is abandoned, recorded in
 * `lastFailed`, and the active slot boots.
 */
export function chooseBootSlot(env: TryOnceEnv): BootChoice {
  if (env.trySlot === undefined) return { slot: env.activeSlot, trial: 0, env };
  if (env.tryCount < env.maxTries) {
    const tryCount = env.tryCount + 1;
    return { slot: env.trySlot, trial: tryCount, env: { ...env, tryCount } };
  }
  const { trySlot: _abandoned, ...rest } = env;
  return { slot: env.activeSlot, trial: 0, env: { ...rest, tryCount: 0, lastFailed: env.trySlot } };
}
