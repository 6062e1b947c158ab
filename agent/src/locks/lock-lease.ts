/** A lock file with no expiry of its own holds for this long after it was last written (touch to renew). */
export const DEFAULT_LOCK_TTL_MS = 10 * 60_000;
/** No lease runs longer than this after its file was last written, whatever it says: a lock cannot get stuck. */
export const MAX_LOCK_TTL_MS = 24 * 60 * 60_000;

/** Lock names: what a file name and a label can safely be. */
const LOCK_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

export const isLockName = (name: string): boolean => LOCK_NAME.test(name);

export const lockNameProblem = (name: string): string | undefined =>
  isLockName(name)
    ? undefined
    : `${JSON.stringify(name.slice(0, 80))} is not a lock name: 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit`;

/** An update lock as found on disk. */
export interface UpdateLock {
  name: string;
  expiresAtMs: number;
}

/**
 * When a lock file's lease ends, from its content and the time it was last written: an RFC 3339 time, or
 * nothing (the default lease from the write). Anything else counts as nothing. Never later than
 * MAX_LOCK_TTL_MS after the write.
 */
export function leaseExpiry(content: string, writtenAtMs: number): number {
  const text = content.trim();
  const stated = /^\d{4}-\d\d-\d\dT/.test(text) ? Date.parse(text) : Number.NaN;
  const expiry = Number.isFinite(stated) ? stated : writtenAtMs + DEFAULT_LOCK_TTL_MS;
  return Math.min(expiry, writtenAtMs + MAX_LOCK_TTL_MS);
}

/** The locks still held at `nowMs`, soonest expiry first. */
export const heldAt = (locks: readonly UpdateLock[], nowMs: number): UpdateLock[] =>
  locks.filter((lock) => lock.expiresAtMs > nowMs).sort((a, b) => a.expiresAtMs - b.expiresAtMs);

/** "app (until 2026-11-25T12:00:00.000Z), db (until ...)" */
export const describeLocks = (locks: readonly UpdateLock[]): string =>
  locks.map((lock) => `${lock.name} (until ${new Date(lock.expiresAtMs).toISOString()})`).join(', ');
