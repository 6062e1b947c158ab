import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Slot } from '@outpost/shared';
import { isNotFound, writeFileAtomic } from '@outpost/shared';
import { slotOf } from './boot-backend.js';
import type { BootBackend, BootState } from './boot-backend.js';
import { GRUBENV_SIZE, formatGrubenv, parseGrubenv } from './grubenv-format.js';
import { readKernelCmdline } from './kernel-cmdline.js';
import { KERNEL_CMDLINE_FILE, OS_VERSION_FILE, kernelBootTimeMs, readFirstLine } from './running-root.js';
import { partitionSlotTarget } from './slot-target.js';

export const GRUBENV_FILE = '/boot/efi/EFI/ab/grubenv';
export const PARTLABEL_SLOTS: Readonly<Record<Slot, string>> = {
  A: '/dev/disk/by-partlabel/root_a',
  B: '/dev/disk/by-partlabel/root_b',
};

export interface GrubenvBackendOptions {
  /** default /boot/efi/EFI/ab/grubenv */
  envFile?: string;
  /** default /proc/cmdline */
  cmdlineFile?: string;
  /** default /etc/outpost/os-version */
  osVersionFile?: string;
  /** default /dev/disk/by-partlabel/root_a|root_b */
  slotPaths?: Readonly<Record<Slot, string>>;
  bootId: () => Promise<string>;
  bootTimeMs?: () => number;
}

/** The grubenv scheme of boot-backend.ts, the environment block written in JS in place. */
export function grubenvBackend(options: GrubenvBackendOptions): BootBackend {
  const envFile = options.envFile ?? GRUBENV_FILE;
  const slotPaths = options.slotPaths ?? PARTLABEL_SLOTS;
  let queue: Promise<unknown> = Promise.resolve();
  const update = (patch: Record<string, string>): Promise<void> => {
    const run = async (): Promise<void> => {
      const variables = (await readGrubenv(envFile)) ?? new Map<string, string>();
      for (const [name, value] of Object.entries(patch)) variables.set(name, value);
      await writeGrubenv(envFile, formatGrubenv(variables));
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    name: 'grubenv',
    async readState(): Promise<BootState> {
      const [variables, cmdline, bootId] = await Promise.all([
        readGrubenv(envFile),
        readKernelCmdline(options.cmdlineFile ?? KERNEL_CMDLINE_FILE),
        options.bootId(),
      ]);
      const env = Object.fromEntries(variables ?? []);
      // the GRUB script's defaults when a variable is missing
      const activeSlot = slotOf(env['active_slot']) ?? 'A';
      const state: BootState = {
        bootId,
        bootTimeMs: (options.bootTimeMs ?? kernelBootTimeMs)(),
        runningSlot: slotOf(cmdline.get('ab.slot')) ?? activeSlot,
        activeSlot,
        env,
      };
      const trySlot = slotOf(env['try_slot']);
      if (trySlot !== undefined) state.trySlot = trySlot;
      const lastFailed = slotOf(env['last_failed']);
      if (lastFailed !== undefined) state.lastFailed = lastFailed;
      return state;
    },
    runningVersion: () => readFirstLine(options.osVersionFile ?? OS_VERSION_FILE),
    resetTry: () => update({ try_slot: '', try_count: '0', last_failed: '' }),
    tryOnce: (slot) => update({ try_slot: slot, try_count: '0', last_failed: '' }),
    commit: (slot) => update({ active_slot: slot, try_slot: '', try_count: '0' }),
    slotTarget: (slot) => partitionSlotTarget(slot, slotPaths[slot]),
    async setSlotVersion() {
      // the image's root carries its version (/etc/outpost/os-version)
    },
  };
}

async function readGrubenv(path: string): Promise<Map<string, string> | undefined> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  try {
    const block = Buffer.alloc(GRUBENV_SIZE);
    const { bytesRead } = await file.read(block, 0, GRUBENV_SIZE, 0);
    return parseGrubenv(block.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/**
 * Rewrites the block in place (same size, same disk blocks: GRUB's save_env writes to the blocks it found
 * at boot) and fsyncs it; creates it when missing.
 */
async function writeGrubenv(path: string, block: Buffer): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(path, 'r+');
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await writeFileAtomic(path, block);
    return;
  }
  try {
    await file.write(block, 0, block.length, 0);
    await file.truncate(block.length);
    await file.sync();
  } finally {
    await file.close();
  }
}
