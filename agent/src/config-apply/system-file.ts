import { readFile, rm } from 'node:fs/promises';
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
