import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { leaseExpiry } from '../locks/lock-lease.js';
import type { Logger } from '../logging/logger.js';

/** When the agent prunes: daily at 04:17 on the device's clock (node-cron). */
export const HOUSEKEEPING_SCHEDULE = '17 4 * * *';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A service's rotated log (`<service>.log.1`) unchanged this long is removed. */
export const ROTATED_LOG_MAX_AGE_MS = 7 * DAY_MS;
/** A temporary file of an atomic write (`.<name>.<12 hex>.tmp`) this old was left by a crash. */
export const TEMP_FILE_MAX_AGE_MS = HOUR_MS;
/** A lock file whose lease ended this long ago is removed. */
export const EXPIRED_LOCK_GRACE_MS = DAY_MS;

/** A file the housekeeping looked at. */
export interface FoundFile {
  path: string;
  name: string;
  /** where it was found */
  place: 'data' | 'workloads' | 'locks';
  mtimeMs: number;
  /** a lock file's content (short) */
  content?: string;
}

const ATOMIC_TEMP_FILE = /^\..+\.[0-9a-f]{12}\.tmp$/;
const ROTATED_LOG = /\.log\.1$/;

/** Why `file` should go at `nowMs`, or undefined to keep it. Pure. */
export function pruneReason(file: FoundFile, nowMs: number): string | undefined {
  const age = nowMs - file.mtimeMs;
  if (ATOMIC_TEMP_FILE.test(file.name) && age > TEMP_FILE_MAX_AGE_MS) return 'a temporary file left by a crash';
  if (file.place === 'workloads' && ROTATED_LOG.test(file.name) && age > ROTATED_LOG_MAX_AGE_MS) {
    return 'a rotated service log older than 7 days';
  }
  if (file.place === 'locks' && !file.name.startsWith('.')) {
    const expiry = leaseExpiry(file.content ?? '', file.mtimeMs);
    if (nowMs - expiry > EXPIRED_LOCK_GRACE_MS) return 'an update lock expired over a day ago';
  }
  return undefined;
}

/** At most this many files are looked at per folder: a runaway folder cannot stall the agent. */
const MAX_FILES_PER_DIR = 10_000;

/**
 * Removes what `pruneReason` names under {device_root}/data: temporary files of atomic writes (in data/ and one
 * level below), rotated service logs in data/workloads/<pod>/, and long-expired lock files in data/locks/.
 * Returns what was removed.
 */
export async function pruneDeviceData(dataDir: string, logger: Logger, nowMs = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const consider = async (file: FoundFile): Promise<void> => {
    const reason = pruneReason(file, nowMs);
    if (reason === undefined) return;
    await rm(file.path, { force: true });
    removed.push(file.path);
    logger.info({ path: file.path, reason }, 'pruned');
  };
  for (const dir of await subdirs(dataDir)) {
    const place = dir === 'locks' ? 'locks' : 'data';
    for (const file of await filesIn(join(dataDir, dir), place)) await consider(file);
    if (dir === 'workloads') {
      for (const pod of await subdirs(join(dataDir, dir))) {
        for (const file of await filesIn(join(dataDir, dir, pod), 'workloads')) await consider(file);
      }
    }
  }
  for (const file of await filesIn(dataDir, 'data')) await consider(file);
  return removed;
}

async function subdirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

async function filesIn(dir: string, place: FoundFile['place']): Promise<FoundFile[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: FoundFile[] = [];
  for (const entry of entries.slice(0, MAX_FILES_PER_DIR)) {
    if (!entry.isFile()) continue;
    const path = join(dir, entry.name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) continue;
    const content =
      place === 'locks' && info.size <= 256 ? await readFile(path, 'utf8').catch(() => undefined) : undefined;
    files.push({ path, name: entry.name, place, mtimeMs: info.mtimeMs, ...(content === undefined ? {} : { content }) });
  }
  return files;
}
