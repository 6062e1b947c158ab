import { run } from './command.js';

export interface Partition {
  /** the GPT partition name (PARTLABEL): esp, root_a, root_b, data */
  name: string;
  /** byte offset in the disk */
  offset: number;
  /** bytes */
  size: number;
}

export type DiskLayout = Record<string, Partition>;

interface SfdiskJson {
  partitiontable: { sectorsize?: number; partitions: { start: number; size: number; name?: string }[] };
}

/** The GPT partitions of a raw disk image, by name (from `sfdisk --json`, so images/boot/layout.sh stays the one source). */
export async function readDiskLayout(rawDisk: string): Promise<DiskLayout> {
  const { stdout } = await run('sfdisk', ['--json', rawDisk]);
  const table = (JSON.parse(stdout) as SfdiskJson).partitiontable;
  const sector = table.sectorsize ?? 512;
  const layout: DiskLayout = {};
  for (const part of table.partitions) {
    if (part.name === undefined) continue;
    layout[part.name] = { name: part.name, offset: part.start * sector, size: part.size * sector };
  }
  for (const name of ['esp', 'root_a', 'root_b', 'data']) {
    if (layout[name] === undefined) throw new Error(`${rawDisk} has no partition named ${name}`);
  }
  return layout;
}

export function partitionOf(layout: DiskLayout, name: string): Partition {
  const part = layout[name];
  if (part === undefined) throw new Error(`no partition ${name} in the disk layout`);
  return part;
}
