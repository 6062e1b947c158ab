import { emptyProgress } from './os-progress.js';
import type { OsProgress, OsProgressStore } from './os-progress.js';

/**
 * An OsProgressStore in memory, for the simulated fleet's devices (it outlives their simulated reboots). Reads
 * and writes copy, so the executor never shares an object with what is "on disk".
 */
export function memoryOsProgressStore(): OsProgressStore {
  let stored = emptyProgress();
  return {
    read: async (): Promise<OsProgress> => structuredClone(stored),
    write: async (progress) => {
      stored = structuredClone(progress);
    },
  };
}
