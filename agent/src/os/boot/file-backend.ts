import { open, rm } from 'node:fs/promises';
import type { Slot } from '@outpost/shared';
import { writeFileAtomic } from '@outpost/shared';
import type { BootBackend, BootState } from './boot-backend.js';
import { readFirstLine } from './running-root.js';
import {
  bootStateOf,
  readBootloaderState,
  readSimulatedBoot,
  slotImageFile,
  slotVersionFile,
  writeBootloaderState,
} from './simulated-device.js';
import type { SimulatedDevicePaths } from './simulated-device.js';
import { fileSlotTarget } from './slot-target.js';
import type { TryOnceEnv } from './try-once.js';

export interface FileBackendOptions {
  paths: SimulatedDevicePaths;
  /** how many bytes a slot holds (--slot-size) */
  slotSizeBytes: number;
}

/** The simulated device of boot-backend.ts; the device must have booted (simulatedBoot) first. */
export function fileBackend(options: FileBackendOptions): BootBackend {
  const { paths } = options;
  const state = async (): Promise<TryOnceEnv> => {
    const current = await readBootloaderState(paths);
    if (current === undefined) throw new Error(`${paths.stateFile} is missing: the simulated device never booted`);
    return current;
  };
  const boot = async () => {
    const current = await readSimulatedBoot(paths);
    if (current === undefined) throw new Error(`${paths.bootFile} is missing: the simulated device is not running`);
    return current;
  };
  let queue: Promise<unknown> = Promise.resolve();
  const update = (change: (current: TryOnceEnv) => TryOnceEnv): Promise<void> => {
    const run = async (): Promise<void> => writeBootloaderState(paths, change(await state()));
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    name: 'file',
    async readState(): Promise<BootState> {
      const [env, running] = await Promise.all([state(), boot()]);
      return bootStateOf(running, env);
    },
    async runningVersion() {
      return readFirstLine(slotVersionFile(paths, (await boot()).slot));
    },
    resetTry: () => update(({ trySlot: _try, lastFailed: _failed, ...rest }) => ({ ...rest, tryCount: 0 })),
    tryOnce: (slot) => update(({ lastFailed: _failed, ...rest }) => ({ ...rest, trySlot: slot, tryCount: 0 })),
    commit: (slot) => update(({ trySlot: _try, ...rest }) => ({ ...rest, activeSlot: slot, tryCount: 0 })),
    slotTarget: (slot) => fileSlotTarget(slot, slotImageFile(paths, slot), options.slotSizeBytes),
    async setSlotVersion(slot: Slot, version: string | undefined) {
      const file = slotVersionFile(paths, slot);
      if (version === undefined) {
        await rm(file, { force: true });
        await syncDirectory(paths.slotsDir); // the slot must not look bootable once its image is being replaced
      } else {
        await writeFileAtomic(file, `${version}\n`);
      }
    },
  };
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
