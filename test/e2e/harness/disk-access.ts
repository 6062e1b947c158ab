import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readLuksPayload } from '../../../images/lib/luks-data.js';
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

const GRUBENV_ESP_PATH = 'EFI/ab/grubenv';

/** The grubenv variables as GRUB will see them at the next boot (/EFI/ab/grubenv on the ESP). */
export async function readGrubenvFromDisk(
  overlay: string,
  esp: Partition,
  scratchDir: string,
): Promise<Record<string, string>> {
  const text = await readEspFile(overlay, esp, GRUBENV_ESP_PATH, scratchDir);
  if (text === undefined) throw new Error(`the ESP of ${overlay} has no ${GRUBENV_ESP_PATH}`);
  return parseGrubenv(text);
}

/** A file of the ESP (path inside it, e.g. `EFI/ab/grubenv`); undefined when missing. */
export async function readEspFile(
  overlay: string,
  esp: Partition,
  path: string,
  scratchDir: string,
): Promise<string | undefined> {
  return withScratch(scratchDir, async (dir) => {
    const image = join(dir, 'esp.img');
    await extractPartition(overlay, esp, image);
    const { code, stdout } = await run('mcopy', ['-n', '-i', image, `::/${path}`, '-'], { allowFailure: true });
    return code === 0 ? stdout : undefined;
  });
}

/** Sets grubenv variables on the ESP (`grub-editenv set`), as the agent would in the guest. */
export async function setGrubenvOnDisk(
  overlay: string,
  esp: Partition,
  variables: Record<string, string>,
  scratchDir: string,
): Promise<void> {
  await editEsp(overlay, esp, scratchDir, async (image, dir) => {
    const envFile = join(dir, 'grubenv');
    await run('mcopy', ['-n', '-i', image, `::/${GRUBENV_ESP_PATH}`, envFile]);
    const settings = Object.entries(variables).map(([key, value]) => `${key}=${value}`);
    await run('grub-editenv', [envFile, 'set', ...settings]);
    await run('mcopy', ['-o', '-i', image, envFile, `::/${GRUBENV_ESP_PATH}`]);
  });
}

/** Writes `content` to `path` on the ESP (folders made as needed). */
export async function writeEspFile(
  overlay: string,
  esp: Partition,
  path: string,
  content: string,
  scratchDir: string,
): Promise<void> {
  await editEsp(overlay, esp, scratchDir, async (image, dir) => {
    const file = join(dir, 'content');
    await writeFile(file, content);
    let folder = '';
    for (const part of dirname(path)
      .split('/')
      .filter((p) => p !== '.')) {
      folder += `/${part}`;
      await run('mmd', ['-i', image, `::${folder}`], { allowFailure: true }); // exists already: fine
    }
    await run('mcopy', ['-o', '-i', image, file, `::/${path}`]);
  });
}

/** Copies the ESP out, lets `edit` change the copy (mtools), and writes it back. */
async function editEsp(
  overlay: string,
  esp: Partition,
  scratchDir: string,
  edit: (image: string, dir: string) => Promise<void>,
): Promise<void> {
  await withScratch(scratchDir, async (dir) => {
    const image = join(dir, 'esp.img');
    await extractPartition(overlay, esp, image);
    await edit(image, dir);
    await writePartition(overlay, esp, image);
  });
}

/**
 * Files of the data partition ({device_root}), by path inside it (`/data/marker`); undefined when missing.
 * The journal is replayed on the copy first, so writes a power cut left in the journal are seen. With
 * `volumeKey`, the partition is LUKS2 (images/lib/luks-data.ts) and its payload is decrypted first.
 */
export async function readDataPartitionFiles(
  overlay: string,
  data: Partition,
  paths: readonly string[],
  scratchDir: string,
  volumeKey?: Buffer,
): Promise<Record<string, string | undefined>> {
  return withScratch(scratchDir, async (dir) => {
    const image = join(dir, 'data.img');
    if (volumeKey === undefined) {
      await extractPartition(overlay, data, image);
    } else {
      const container = join(dir, 'data-luks.img');
      await extractPartition(overlay, data, container);
      await readLuksPayload(container, volumeKey, image);
      await rm(container);
    }
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
