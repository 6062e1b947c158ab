import { readFile, realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Slot } from '@outpost/shared';

/** Where one slot's image is written. */
export interface SlotTarget {
  slot: Slot;
  /** a block device (partition), a file standing in for one, or a simulated slot file */
  path: string;
  /** true for a simulated slot file that grows as it is written: free space on its filesystem is checked */
  growable: boolean;
  /** how many bytes the slot can hold */
  capacity(): Promise<number>;
}

/** A simulated slot: a file of at most `capacityBytes`, created on the first write. */
export function fileSlotTarget(slot: Slot, path: string, capacityBytes: number): SlotTarget {
  return { slot, path, growable: true, capacity: async () => capacityBytes };
}

/** A partition (block device), or a fixed-size file standing in for one: its size is its capacity. */
export function partitionSlotTarget(slot: Slot, path: string): SlotTarget {
  return { slot, path, growable: false, capacity: () => partitionSize(path) };
}

async function partitionSize(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isBlockDevice()) return info.size;
  // stat says 0 for a block device; the kernel gives its size in 512-byte sectors
  const name = basename(await realpath(path));
  const sectors = Number((await readFile(`/sys/class/block/${name}/size`, 'utf8')).trim());
  if (!Number.isSafeInteger(sectors)) throw new Error(`cannot read the size of ${path}`);
  return sectors * 512;
}
