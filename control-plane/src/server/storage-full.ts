import { ApiError } from '@outpost/shared';

/** SQLITE_FULL; the file system's ENOSPC and EDQUOT; PostgreSQL's SQLSTATE 53100 (disk_full). */
const STORAGE_FULL_CODES: ReadonlySet<unknown> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);

/**
 * True for the errors a full disk (or quota) produces, on either store. Such a write may succeed later, once
 * space is freed; it says nothing wrong about the request.
 */
export function isStorageFull(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  return STORAGE_FULL_CODES.has((err as { code?: unknown }).code);
}

/** What a write refused for lack of space answers: 503, the server keeps serving reads. */
export const storageFull = (): ApiError =>
  new ApiError('UNAVAILABLE', 'storage is full: the control plane cannot write until space is freed on its data disk');

/**
 * Runs a write the server can start without (marking devices offline, creating defaults): when the disk is
 * full it is skipped and `onSkipped` told, so a full disk does not keep the control plane from starting and
 * serving reads. Any other error propagates.
 */
export function unlessStorageFull(write: () => void, onSkipped: (err: unknown) => void): void {
  try {
    write();
  } catch (err) {
    if (!isStorageFull(err)) throw err;
    onSkipped(err);
  }
}
