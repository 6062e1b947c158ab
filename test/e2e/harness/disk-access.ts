import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from './command.js';
import type { Partition } from './disk-layout.js';

/*
 * Reads and writes partitions of a qcow2 overlay from the host without mounting anything (qemu-io,
 * qemu-img, mtools, e2fsprogs). Only while no QEMU process has the overlay open.
 */

/** Writes `imageFile` (exactly the partition's size) over the partition. */
export async function writePartition(overlay: string, part: Partition, imageFile: string): Promise<void> {
  await run('qemu-io', ['-f', 'qcow2', '-c', `write -s ${imageFile} ${part.offset} ${part.size}`, overlay]);
}

/** Copies the partition out of the overlay into a raw file. */
export async function extractPartition(overlay: string, part: Partition, outFile: string): Promise<void> {
  // the raw driver's offset/size window over the qcow2 image: exactly the partition, whatever the QEMU version
  const window = `driver=raw,offset=${part.offset},size=${part.size},file.driver=qcow2,file.file.driver=file,file.file.filename=${overlay}`;
  await run('qemu-img', ['convert', '--image-opts', window, '-O', 'raw', outFile]);
}

/** Parses a GRUB environment block: `key=value` lines, `#` comments and padding. */
export function parseGrubenv(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) variables[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return variables;
}

/** The grubenv variables as GRUB will see them at the next boot (/EFI/ab/grubenv on the ESP). */
export async function readGrubenvFromDisk(
  overlay: string,
  esp: Partition,
  scratchDir: string,
): Promise<Record<string, string>> {
  return withScratch(scratchDir, async (dir) => {
    const image = join(dir, 'esp.img');
    await extractPartition(overlay, esp, image);
    const { stdout } = await run('mcopy', ['-n', '-i', image, '::/EFI/ab/grubenv', '-']);
    return parseGrubenv(stdout);
  });
}

/**
 * Files of the data partition ({device_root}), by path inside it (`/data/marker`); undefined when missing.
 * The journal is replayed on the copy first, so writes a power cut left in the journal are seen.
 */
export async function readDataPartitionFiles(
  overlay: string,
  data: Partition,
  paths: readonly string[],
  scratchDir: string,
): Promise<Record<string, string | undefined>> {
  return withScratch(scratchDir, async (dir) => {
    const image = join(dir, 'data.img');
    await extractPartition(overlay, data, image);
    const fsck = await run('e2fsck', ['-fy', image], { allowFailure: true });
    if (fsck.code === null || fsck.code > 2)
      throw new Error(`e2fsck of the data partition failed:\n${fsck.stdout}${fsck.stderr}`);
    const files: Record<string, string | undefined> = {};
    for (const path of paths) {
      const { stdout, stderr } = await run('debugfs', ['-R', `cat ${path}`, image]);
      files[path] = /not found|File not found/i.test(stderr) ? undefined : stdout;
    }
    return files;
  });
}

async function withScratch<T>(parent: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(parent, 'disk-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
