import { join } from 'node:path';
import { z } from 'zod';
import { SLOTS, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import type { Slot } from '@outpost/shared';
import type { BootState } from './boot-backend.js';
import type { TryOnceEnv } from './try-once.js';

/** The files of the simulated device of the file boot backend (see boot-backend.ts). */
export interface SimulatedDevicePaths {
  /** {device_root}/boot/state.json: the bootloader's variables (persistent) */
  stateFile: string;
  /** {device_root}/slots/ */
  slotsDir: string;
  /** {device_root}/sim-run/: volatile ("RAM"), gone after a reboot or a power cut */
  volatileDir: string;
  /** {device_root}/sim-run/boot.json: this boot's facts */
  bootFile: string;
}

export function simulatedDevicePaths(deviceRoot: string): SimulatedDevicePaths {
  const volatileDir = join(deviceRoot, 'sim-run');
  return {
    stateFile: join(deviceRoot, 'boot', 'state.json'),
    slotsDir: join(deviceRoot, 'slots'),
    volatileDir,
    bootFile: join(volatileDir, 'boot.json'),
  };
}

export const slotImageFile = (paths: SimulatedDevicePaths, slot: Slot): string => join(paths.slotsDir, `${slot}.img`);
export const slotVersionFile = (paths: SimulatedDevicePaths, slot: Slot): string =>
  join(paths.slotsDir, `${slot}.version`);

const slotSchema = z.enum(SLOTS);

const bootloaderStateSchema = z.object({
  activeSlot: slotSchema,
  trySlot: slotSchema.optional(),
  tryCount: z.int().nonnegative(),
  maxTries: z.int().positive(),
  lastFailed: slotSchema.optional(),
});

const simulatedBootSchema = z.object({
  bootId: z.string().min(1),
  slot: slotSchema,
  trial: z.int().nonnegative(),
  bootTimeMs: z.number(),
});

/** What the simulated bootloader chose for this boot (kept in the volatile dir). */
export type SimulatedBoot = z.infer<typeof simulatedBootSchema>;

export async function readBootloaderState(paths: SimulatedDevicePaths): Promise<TryOnceEnv | undefined> {
  const value = await readJsonFile(paths.stateFile);
  if (value === undefined) return undefined;
  const parsed = bootloaderStateSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${paths.stateFile} is not a boot state: ${parsed.error.message}`);
  return withoutUndefined(parsed.data);
}

export const writeBootloaderState = (paths: SimulatedDevicePaths, state: TryOnceEnv): Promise<void> =>
  writeJsonFileAtomic(paths.stateFile, state);

export async function readSimulatedBoot(paths: SimulatedDevicePaths): Promise<SimulatedBoot | undefined> {
  let value: unknown;
  try {
    value = await readJsonFile(paths.bootFile);
  } catch {
    return undefined; // unreadable volatile state counts as lost RAM: boot again
  }
  const parsed = simulatedBootSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export const writeSimulatedBoot = (paths: SimulatedDevicePaths, boot: SimulatedBoot): Promise<void> =>
  writeJsonFileAtomic(paths.bootFile, boot);

/** The bootloader's variables under grubenv's names, as status.osUpdate.bootEnv reports them. */
export function bootEnvOf(state: TryOnceEnv): Record<string, string> {
  return {
    active_slot: state.activeSlot,
    try_slot: state.trySlot ?? '',
    try_count: String(state.tryCount),
    max_tries: String(state.maxTries),
    last_failed: state.lastFailed ?? '',
  };
}

/** What a simulated device's backend reports: the boot it runs and its bootloader's variables. */
export function bootStateOf(running: SimulatedBoot, env: TryOnceEnv): BootState {
  const state: BootState = {
    bootId: running.bootId,
    bootTimeMs: running.bootTimeMs,
    runningSlot: running.slot,
    activeSlot: env.activeSlot,
    env: bootEnvOf(env),
  };
  if (env.trySlot !== undefined) state.trySlot = env.trySlot;
  if (env.lastFailed !== undefined) state.lastFailed = env.lastFailed;
  return state;
}

function withoutUndefined(state: z.infer<typeof bootloaderStateSchema>): TryOnceEnv {
  const result: TryOnceEnv = { activeSlot: state.activeSlot, tryCount: state.tryCount, maxTries: state.maxTries };
  if (state.trySlot !== undefined) result.trySlot = state.trySlot;
  if (state.lastFailed !== undefined) result.lastFailed = state.lastFailed;
  return result;
}
