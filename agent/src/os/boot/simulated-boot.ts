import { randomUUID } from 'node:crypto';
import { mkdir, open, writeFile } from 'node:fs/promises';
import type { Slot } from '@outpost/shared';
import { isNotFound, writeFileAtomic } from '@outpost/shared';
import { readFirstLine } from './running-root.js';
import {
  readBootloaderState,
  readSimulatedBoot,
  slotImageFile,
  slotVersionFile,
  writeBootloaderState,
  writeSimulatedBoot,
} from './simulated-device.js';
import type { SimulatedBoot, SimulatedDevicePaths } from './simulated-device.js';
import { chooseBootSlot } from './try-once.js';
import type { TryOnceEnv } from './try-once.js';

/** An image starting with these bytes never boots (test hook, see boot-backend.ts). */
export const PANIC_MARKER = 'OUTPOST-TEST-PANIC';

/** More failed boots in a row than this means no slot can boot: the simulation stops with an error. */
const MAX_BOOT_ATTEMPTS = 8;

export interface SimulatedBootOptions {
  /** the version in slot A of a brand-new device */
  factoryVersion: string;
  now?: () => number;
  /** told about each boot attempt (the bootloader's "serial console") */
  log?: (message: string) => void;
}

/**
 * Powers the simulated device on if it is not running: when the volatile boot record is missing, the
 * simulated bootloader picks a slot (try-once, like the GRUB script), and a slot that cannot boot makes it
 * boot again until one does. A brand-new device gets its factory state first. Returns this boot's facts
 * and whether a boot happened now (false: only the agent restarted).
 */
export async function simulatedBoot(
  paths: SimulatedDevicePaths,
  options: SimulatedBootOptions,
): Promise<{ boot: SimulatedBoot; booted: boolean }> {
  const running = await readSimulatedBoot(paths);
  if (running !== undefined) return { boot: running, booted: false };

  let state = (await readBootloaderState(paths)) ?? (await factoryReset(paths, options.factoryVersion));
  for (let attempt = 1; attempt <= MAX_BOOT_ATTEMPTS; attempt++) {
    const choice = chooseBootSlot(state);
    state = choice.env;
    await writeBootloaderState(paths, state); // save_env happens before the kernel starts
    const failure = await whyNotBootable(paths, choice.slot);
    if (failure === undefined) {
      const boot: SimulatedBoot = {
        bootId: randomUUID(),
        slot: choice.slot,
        trial: choice.trial,
        bootTimeMs: (options.now ?? Date.now)(),
      };
      await writeSimulatedBoot(paths, boot);
      options.log?.(`booted slot ${choice.slot} (trial=${choice.trial})`);
      return { boot, booted: true };
    }
    options.log?.(`slot ${choice.slot} (trial=${choice.trial}) does not boot: ${failure}; rebooting`);
  }
  throw new Error(`the simulated device cannot boot any slot (${MAX_BOOT_ATTEMPTS} failed boots in a row)`);
}

/** A brand-new device: the factory version in slot A, slot B empty. */
async function factoryReset(paths: SimulatedDevicePaths, factoryVersion: string): Promise<TryOnceEnv> {
  await mkdir(paths.slotsDir, { recursive: true });
  await writeFile(slotImageFile(paths, 'A'), '', { flag: 'a' });
  if ((await readFirstLine(slotVersionFile(paths, 'A'))) === undefined) {
    await writeFileAtomic(slotVersionFile(paths, 'A'), `${factoryVersion}\n`);
  }
  const state: TryOnceEnv = { activeSlot: 'A', tryCount: 0, maxTries: 1 };
  await writeBootloaderState(paths, state);
  return state;
}

async function whyNotBootable(paths: SimulatedDevicePaths, slot: Slot): Promise<string | undefined> {
  if ((await readFirstLine(slotVersionFile(paths, slot))) === undefined) return 'it holds no OS';
  const head = await readHead(slotImageFile(paths, slot), PANIC_MARKER.length);
  if (head === PANIC_MARKER) return 'kernel panic';
  return undefined;
}

async function readHead(path: string, length: number): Promise<string> {
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead).toString('latin1');
    } finally {
      await file.close();
    }
  } catch (err) {
    if (isNotFound(err)) return '';
    throw err;
  }
}
