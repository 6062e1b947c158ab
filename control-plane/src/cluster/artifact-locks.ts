import type { SharedArtifactLocks } from '../os/artifact-holds.js';
import type { PgCoordination } from '../resources/storage/postgres/pg-coordination.js';

/** The key space of the artifacts' advisory locks ("arti"): two-part keys, apart from the one-part cluster locks. */
export const ARTIFACT_LOCK_SPACE = 0x61727469;

/** The lock key of an artifact: the first 32 bits of its digest (two artifacts sharing one only wait for each other). */
const keyOf = (sha256: string): number => Number.parseInt(sha256.slice(0, 8), 16) | 0;

/**
 * The replicas' artifact locks as session advisory locks on this replica's coordination connection: a replica
 * that dies drops its locks with its session. While the connection is down, shared locks are not taken (the
 * download goes on; the holder takes them again on the next connection) and exclusive ones are refused.
 */
export function pgArtifactLocks(
  coordination: () => PgCoordination | undefined,
  onReconnected: (listener: () => void) => void,
): SharedArtifactLocks {
  const open = (): PgCoordination | undefined => {
    const connection = coordination();
    return connection?.open === true ? connection : undefined;
  };
  return {
    holdShared: async (sha256) => void (await open()?.tryLockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), true)),
    releaseShared: async (sha256) => open()?.unlockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), true),
    tryExclusive: async (sha256) => (await open()?.tryLockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), false)) === true,
    releaseExclusive: async (sha256) => open()?.unlockPair(ARTIFACT_LOCK_SPACE, keyOf(sha256), false),
    onReconnected,
  };
}
