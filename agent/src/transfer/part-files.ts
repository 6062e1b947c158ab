import { lstat, mkdir, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import type { PartFileRecord } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';

/** {device_root}/data/upload-parts: one record per temporary file an upload has on disk, holding its path. */
export const partFilesDir = (dataDir: string): string => join(dataDir, 'upload-parts');

/** The names TreeWriter gives its temporary files: `.<name>.<12 hex>.outpost-part`. */
const PART_FILE_NAME = /^\..*\.[0-9a-f]{12}\.outpost-part$/s;

/**
 * Records each temporary file of an upload under {device_root}/data before it is created, and forgets it once it
 * is renamed into place or removed: what is recorded when the agent starts was left by a process that was killed
 * (or lost power) mid-transfer, and removePartFilesLeftBehind removes exactly those files.
 */
export function partFileRecord(dataDir: string, logger: Logger): PartFileRecord {
  const dir = partFilesDir(dataDir);
  const records = new Map<string, string>();
  let next = 0;
  return {
    async add(path) {
      const record = join(dir, `${process.pid}-${Date.now().toString(36)}-${next++}`);
      await mkdir(dir, { recursive: true });
      await writeFile(record, path);
      records.set(path, record);
    },
    async remove(path) {
      const record = records.get(path);
      if (record === undefined) return;
      records.delete(path);
      await unlink(record).catch((err: unknown) => logger.warn({ err, record }, 'cannot remove an upload part record'));
    },
  };
}

/**
 * Removes the temporary upload files an earlier agent process left behind (see partFileRecord) and their records.
 * Run at start, before any upload. Only a regular file with the name TreeWriter gives its temporary files is
 * removed, whatever a record says.
 */
export async function removePartFilesLeftBehind(dataDir: string, logger: Logger): Promise<void> {
  const dir = partFilesDir(dataDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') logger.warn({ err, dir }, 'cannot read the upload part records');
    return;
  }
  const removed: string[] = [];
  let bytes = 0;
  for (const name of names) {
    const record = join(dir, name);
    try {
      const path = await readFile(record, 'utf8');
      const stats =
        isAbsolute(path) && PART_FILE_NAME.test(basename(path)) ? await lstat(path).catch(() => null) : null;
      if (stats?.isFile()) {
        await rm(path, { force: true });
        removed.push(path);
        bytes += stats.size;
      }
      await unlink(record);
    } catch (err) {
      logger.warn({ err, record }, 'cannot remove what an interrupted upload left behind');
    }
  }
  if (removed.length > 0) {
    logger.info({ files: removed, bytes }, 'removed the partial files of uploads interrupted by the last stop');
  }
}
