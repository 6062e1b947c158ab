import type { Slot } from '@outpost/shared';

/**
 * The TPM and cryptsetup operations behind the automatic unlock of the encrypted data partition (issue 20),
 * passed into the OS core like the boot backends. The key slot of the LUKS2 header is sealed to a TPM policy
 * that accepts the boot chain of one or two A/B slots; `seal` replaces that policy atomically (the old one
 * unlocks until the new one is in place), so a power cut during it leaves one of the two.
 *
 * Adapters:
 *
 *  simulated-tpm — the file boot backend's device (simulated-tpm.ts): the sealed policy and the measured boot
 *    chain of each slot live in files under `{device_root}/sim-tpm/`; present only when that folder exists (the
 *    simulated device was provisioned "encrypted").
 *
 *  tpm2 — a real device (tpm2-adapter.ts): tpm2-tools and cryptsetup, the sealed key in a LUKS2 token; the
 *    design and the measurements behind it are in DESIGN.md.
 */
export interface DiskUnlockAdapter {
  readonly kind: 'simulated-tpm' | 'tpm2';
  /** the PCRs the policy binds (SHA-256 bank) */
  readonly boundPcrs: readonly number[];
  /** the policy as sealed now */
  readBinding(): Promise<UnlockBinding>;
  /**
   * Re-seals the unlock key so that exactly the boot chains of `slots` unlock it (each predicted from the
   * slot's measured components). Throws UnlockPrepareError when it cannot (TPM lockout, a chain that cannot be
   * predicted, ...): the old policy then still stands.
   */
  seal(slots: readonly Slot[], reason: string): Promise<UnlockBinding>;
  /** whether the boot chain measured at this boot is one the policy accepts (the data unlocked without a passphrase) */
  unlockedThisBoot(): Promise<boolean>;
  /**
   * Adds a key slot opened by the content of `keyFile` (the recovery key made at provisioning), authorised by the
   * TPM-sealed key of this boot; answers the key slot's number.
   */
  addRecoveryKey(keyFile: string): Promise<number>;
}

export interface UnlockBinding {
  /** the slots whose boot chain the policy accepts, sorted */
  slots: Slot[];
  /** when and why it was last sealed (absent: as provisioned) */
  changedAtMs?: number;
  reason?: string;
}

/** The TPM cannot be prepared for a boot chain; the message says why (it is shown in OSReady and DiskUnlock). */
export class UnlockPrepareError extends Error {
  override readonly name = 'UnlockPrepareError';
}
