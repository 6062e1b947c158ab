import type { SharedArtifactLocks } from '../os/artifact-holds.js';
import type { CoordinationSession } from '../resources/storage/coordination.js';
import type { ArtifactHoldLeases } from './artifact-hold-leases.js';

/** The key space of the artifacts' advisory locks ("arti"): two-part keys, apart from the one-part cluster locks. */
export const ARTIFACT_LOCK_SPACE = 0x61727469;

/** The lock key of an artifact: the first 32 bits of its digest (two artifacts sharing one only wait for each other). */
const keyOf = (sha256: string): number => Number.parseInt(sha256.slice(0, 8), 16) | 0;

/**
 * The replicas' artifact locks: session locks on this replica's coordination session, and the leased
 * hold records (artifact-hold-leases.ts). A replica that dies drops its locks with its session. While the
 * connection is down, shared locks are not taken (the download goes on; the holder takes them again on the next
 * connection) and exclusive ones are refused; the hold records, written on a connection of their own, keep
 * garbage collection elsewhere off a served artifact meanwhile. The exclusive lock is taken only when no other
 * replica's record holds the artifact.
 */
export function clusterArtifactLocks(
  coordination: () => CoordinationSession | undefined,
  onReconnected: (listener: () => void) => void,
  leases: ArtifactHoldLeases,
): SharedArtifactLocks {
  const open = (): CoordinationSession | undefined => {
    const connection = coordination();
    return connection?.open === true ? connection : undefined;
  };
  const unlockExclusive = async (sha256: string): Promise<void> =>
    open()?.unlockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), false);
  return {
    async holdShared(sha256) {
      await Promise.all([leases.hold(sha256), open()?.tryLockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), true)]);
    },
    async releaseShared(sha256) {
      await Promise.all([leases.release(sha256), open()?.unlockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), true)]);
    },
    async tryExclusive(sha256) {
      if ((await open()?.tryLockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), false)) !== true) return false;
      // read once the lock is held: a record written before it was taken is seen
      const held = await leases.heldElsewhere(sha256).catch(async (err: unknown) => {
        await unlockExclusive(sha256);
        throw err;
      });
      if (held) await unlockExclusive(sha256);
      return !held;
    },
    releaseExclusive: unlockExclusive,
    onReconnected,
  };
}
