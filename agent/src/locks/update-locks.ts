import { mkdirSync, watch } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, writeFileAtomic } from '@outpost/shared';
import { MAX_LOCK_TTL_MS, isLockName, leaseExpiry, lockNameProblem } from './lock-lease.js';
import type { UpdateLock } from './lock-lease.js';

/** A lock file bigger than this is read only this far (an RFC 3339 time is short). */
const MAX_LOCK_FILE_BYTES = 256;

/** {device_root}/data/locks: one file per update lock, written by `droplet lock` or by a container. */
export const locksDir = (deviceRoot: string): string => join(deviceRoot, 'data', 'locks');

/**
 * The update locks of a device: files under `dir`, each a lease whose content (an RFC 3339 expiry) or, without
 * one, last write time plus the default lease says when it ends.
 */
export class UpdateLocks {
  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes (or renews) the lock `name` for `ttlMs`; returns its expiry. */
  async acquire(name: string, ttlMs: number): Promise<UpdateLock> {
    const problem = lockNameProblem(name);
    if (problem !== undefined) throw new Error(problem);
    if (!(ttlMs > 0 && ttlMs <= MAX_LOCK_TTL_MS)) {
      throw new Error(`a lock's ttl is more than 0 and at most ${MAX_LOCK_TTL_MS / 3_600_000}h`);
    }
    const expiresAtMs = this.now() + ttlMs;
    await writeFileAtomic(join(this.dir, name), `${new Date(expiresAtMs).toISOString()}\n`);
    return { name, expiresAtMs };
  }

  /** Drops the lock `name`; false when it was not there. */
  async release(name: string): Promise<boolean> {
    const problem = lockNameProblem(name);
    if (problem !== undefined) throw new Error(problem);
    try {
      await unlink(join(this.dir, name));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Calls `onChange` whenever a lock file is written or removed (the folder is created if missing), so a lock
   * taken or released is seen at once. Returns the function that stops watching.
   */
  watch(onChange: () => void): () => void {
    mkdirSync(this.dir, { recursive: true });
    const watcher = watch(this.dir, { persistent: false }, () => onChange());
    watcher.on('error', () => watcher.close());
    return () => watcher.close();
  }

  /** Every lock file with a lock name, expired or not (other names, and files that vanish meanwhile, are skipped). */
  async list(): Promise<UpdateLock[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    const locks: UpdateLock[] = [];
    for (const name of names.filter(isLockName)) {
      const lock = await this.read(name);
      if (lock !== undefined) locks.push(lock);
    }
    return locks;
  }

  private async read(name: string): Promise<UpdateLock | undefined> {
    const path = join(this.dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile()) return undefined;
      const content = info.size > MAX_LOCK_FILE_BYTES ? '' : await readFile(path, 'utf8');
      return { name, expiresAtMs: leaseExpiry(content, info.mtimeMs) };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
