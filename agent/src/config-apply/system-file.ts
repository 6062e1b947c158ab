import { access, constants, readFile, rm } from 'node:fs/promises';
import { isNotFound, writeFileAtomic } from '@outpost/shared';
import type { SystemRoot } from './system-root.js';

/** The content of a system file under the root, or undefined when it does not exist. */
export async function readSystemFile(root: SystemRoot, systemPath: string): Promise<string | undefined> {
  try {
    return await readFile(root.path(systemPath), 'utf8');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Writes a system file under the root atomically, or removes it when `content` is undefined. */
export async function putSystemFile(
  root: SystemRoot,
  systemPath: string,
  content: string | undefined,
  mode = 0o644,
): Promise<void> {
  if (content === undefined) await rm(root.path(systemPath), { force: true });
  else await writeFileAtomic(root.path(systemPath), content, mode);
}

/**
 * The first of `paths` that is an executable under the root, as a path to run. Commands are run from the system
 * root, so a simulated device (--system-root a folder) runs its folder's stand-in or nothing, never the host's.
 */
export async function executableUnder(root: SystemRoot, paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) {
    try {
      await access(root.path(path), constants.X_OK);
      return root.path(path);
    } catch {
      // not this one
    }
  }
  return undefined;
}

export const SYSTEMCTL_PATHS = ['/usr/bin/systemctl', '/bin/systemctl'];
