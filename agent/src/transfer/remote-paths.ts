import { stat, mkdir } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { failedPrecondition, fsError, invalidArgument, placeEntry } from '@outpost/shared';
import type { TreeRoot } from '@outpost/shared';

/** Normalises an absolute device path, keeping a trailing slash (it means "into this directory"). */
export function normaliseRemote(path: string): string {
  const normal = posix.normalize(path);
  return path.endsWith('/') && !normal.endsWith('/') ? `${normal}/` : normal;
}

/** An upload's destination: absolute only (spec 000 Errors rule 4). */
export function uploadDestination(path: string): string {
  if (!path.startsWith('/')) {
    throw invalidArgument(`the device path "${path}" must be absolute (start with /) for an upload`);
  }
  return normaliseRemote(path);
}

/** A download's source: absolute, or relative to {device_root}. */
export const downloadSource = (path: string, deviceRoot: string): string =>
  isAbsolute(path) ? normaliseRemote(path) : join(deviceRoot, path);

/**
 * Where an uploaded root lands (spec 000 "File transfer path rules" 1): a trailing slash puts it into that
 * directory under its own name (created when missing); without one, the path is its new name, except that a
 * file sent to an existing directory goes into it (as cp and scp do). A directory sent without a trailing slash
 * has its contents copied into the path.
 */
export async function placeUploadRoot(destination: string, root: TreeRoot): Promise<string> {
  if (destination.endsWith('/')) {
    await mkdir(destination, { recursive: true }).catch((err: unknown) => {
      throw (err as { code?: unknown }).code === 'EEXIST' || (err as { code?: unknown }).code === 'ENOTDIR'
        ? failedPrecondition(`${destination} is not a directory`)
        : fsError(err, destination);
    });
    return placeEntry(destination, root.name, true);
  }
  const existing = await stat(destination).catch(() => undefined);
  const into = root.kind === 'file' && existing?.isDirectory() === true;
  return placeEntry(destination, root.name, into);
}
