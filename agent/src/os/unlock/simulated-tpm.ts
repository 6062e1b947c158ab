import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SLOTS, isNotFound, pathExists, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import type { Slot } from '@outpost/shared';
import { readFirstLine } from '../boot/running-root.js';
import { readSimulatedBoot, slotImageFile, slotVersionFile } from '../boot/simulated-device.js';
import type { SimulatedDevicePaths } from '../boot/simulated-device.js';
import type { DiskUnlockAdapter, UnlockBinding } from './unlock-adapter.js';
import { UnlockPrepareError } from './unlock-adapter.js';

/** The PCRs the real binding uses (DESIGN.md); the simulation names the same. */
export const SIMULATED_BOUND_PCRS = [7, 8, 9] as const;

/** The files of the simulated TPM of an "encrypted" file-backend device. */
export interface SimulatedTpmPaths {
  /** {device_root}/sim-tpm/: present when the simulated device's data partition is encrypted */
  dir: string;
  /** the sealed policy: the measured boot chain digests it accepts, per slot they were predicted for */
  policyFile: string;
  /** test hook: while this file exists the TPM refuses every change (dictionary-attack lockout) */
  lockoutFile: string;
  /** {device_root}/sim-run/unlock.json: whether this boot unlocked (volatile, like the boot's own record) */
  bootUnlockFile: string;
  /** the LUKS2 key slots besides the TPM's (slot 0): slot number → SHA-256 of its key */
  keyslotsFile: string;
}

export function simulatedTpmPaths(deviceRoot: string, device: SimulatedDevicePaths): SimulatedTpmPaths {
  const dir = join(deviceRoot, 'sim-tpm');
  return {
    dir,
    policyFile: join(dir, 'policy.json'),
    lockoutFile: join(dir, 'lockout'),
    bootUnlockFile: join(device.volatileDir, 'unlock.json'),
    keyslotsFile: join(dir, 'keyslots.json'),
  };
}

const digest = z.string().regex(/^[0-9a-f]{64}$/);
const policySchema = z.object({
  /** per slot, the digest of its boot chain when the policy was sealed */
  accepted: z.object({ A: digest.optional(), B: digest.optional() }),
  changedAtMs: z.number().optional(),
  reason: z.string().optional(),
});
type SealedPolicy = z.infer<typeof policySchema>;

const bootUnlockSchema = z.object({ bootId: z.string(), unlocked: z.boolean() });
const keyslotsSchema = z.record(z.string().regex(/^\d+$/), digest);

/**
 * The simulated TPM when `{device_root}/sim-tpm/` exists, else undefined (the simulated device is not encrypted).
 * A slot's simulated boot-chain measurement is a digest of its slot name, version and image (size and modification
 * time standing in for GRUB's digest of the kernel): a rewritten slot measures differently until re-sealed.
 * The first boot enrols the key to the booted slot's chain (like a first-boot systemd-cryptenroll).
 */
export async function simulatedTpm(
  deviceRoot: string,
  device: SimulatedDevicePaths,
  now: () => number = Date.now,
): Promise<DiskUnlockAdapter | undefined> {
  const paths = simulatedTpmPaths(deviceRoot, device);
  if (!(await pathExists(paths.dir))) return undefined;

  const measure = async (slot: Slot): Promise<string | undefined> => {
    const version = await readFirstLine(slotVersionFile(device, slot));
    if (version === undefined) return undefined;
    let image: { size: number; mtimeMs: number };
    try {
      image = await stat(slotImageFile(device, slot));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return createHash('sha256').update(`ab.slot=${slot}\0${version}\0${image.size}\0${image.mtimeMs}`).digest('hex');
  };

  const readPolicy = async (): Promise<SealedPolicy | undefined> => {
    const value = await readJsonFile(paths.policyFile);
    if (value === undefined) return undefined;
    const parsed = policySchema.safeParse(value);
    if (!parsed.success) throw new Error(`${paths.policyFile} is not a sealed policy: ${parsed.error.message}`);
    return parsed.data;
  };

  const bindingOf = async (policy: SealedPolicy | undefined): Promise<UnlockBinding> => {
    const sealed = new Set(Object.values(policy?.accepted ?? {}));
    const slots: Slot[] = [];
    for (const slot of SLOTS) {
      const measured = await measure(slot);
      if (measured !== undefined && sealed.has(measured)) slots.push(slot);
    }
    const binding: UnlockBinding = { slots };
    if (policy?.changedAtMs !== undefined) binding.changedAtMs = policy.changedAtMs;
    if (policy?.reason !== undefined) binding.reason = policy.reason;
    return binding;
  };

  const seal = async (slots: readonly Slot[], reason: string): Promise<UnlockBinding> => {
    if (await pathExists(paths.lockoutFile)) {
      throw new UnlockPrepareError('the TPM refuses to seal: it is in dictionary-attack lockout');
    }
    const accepted: SealedPolicy['accepted'] = {};
    for (const slot of slots) {
      const measured = await measure(slot);
      if (measured === undefined) {
        throw new UnlockPrepareError(
          `the boot chain of slot ${slot} cannot be predicted: the slot holds no verified OS`,
        );
      }
      accepted[slot] = measured;
    }
    const policy: SealedPolicy = { accepted, changedAtMs: now(), reason };
    await writeJsonFileAtomic(paths.policyFile, policy);
    return bindingOf(policy);
  };

  const unlockedThisBoot = async (): Promise<boolean> => {
    const boot = await readSimulatedBoot(device);
    if (boot === undefined) throw new Error(`${device.bootFile} is missing: the simulated device is not running`);
    const known = bootUnlockSchema.safeParse(await readJsonFile(paths.bootUnlockFile).catch(() => undefined));
    if (known.success && known.data.bootId === boot.bootId) return known.data.unlocked;
    const policy = await readPolicy();
    let unlocked: boolean;
    if (policy === undefined) {
      await seal([boot.slot], `enrolled at the first boot, to the boot chain of slot ${boot.slot}`);
      unlocked = true;
    } else {
      const measured = await measure(boot.slot);
      unlocked = measured !== undefined && Object.values(policy.accepted).includes(measured);
    }
    await writeJsonFileAtomic(paths.bootUnlockFile, { bootId: boot.bootId, unlocked });
    return unlocked;
  };

  return {
    kind: 'simulated-tpm',
    boundPcrs: SIMULATED_BOUND_PCRS,
    readBinding: async () => bindingOf(await readPolicy()),
    seal,
    unlockedThisBoot,
    async addRecoveryKey(keyFile) {
      // like cryptsetup luksAddKey: only a key that opens the partition (the TPM's, at a boot it unlocked) adds one
      if (!(await unlockedThisBoot())) {
        throw new UnlockPrepareError('the TPM does not release the key at this boot: no key slot can be added');
      }
      const key = await readFile(keyFile);
      if (key.length === 0) throw new Error(`${keyFile} is empty: no recovery key to add`);
      const parsed = keyslotsSchema.safeParse((await readJsonFile(paths.keyslotsFile)) ?? {});
      if (!parsed.success) throw new Error(`${paths.keyslotsFile} is not a key slot table: ${parsed.error.message}`);
      const used = new Set(['0', ...Object.keys(parsed.data)]);
      let slot = 0;
      while (used.has(String(slot))) slot++;
      const keyslots = { ...parsed.data, [String(slot)]: createHash('sha256').update(key).digest('hex') };
      await writeJsonFileAtomic(paths.keyslotsFile, keyslots, 0o600);
      return slot;
    },
  };
}
