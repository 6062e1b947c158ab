/**
 * Which artifacts are being served, so that garbage collection deletes none of them: this process's own
 * downloads, and with `shared` those of the other replicas on the same artifact directory.
 */
export interface ArtifactHolds {
  /** marks `sha256` as being served until the returned release is called */
  hold(sha256: string): Promise<() => void>;
  /** takes `sha256` for deletion unless it is being served anywhere: the release, or undefined when it is */
  claim(sha256: string): Promise<(() => void) | undefined>;
}

/** Locks the replicas share (PostgreSQL advisory locks, cluster/artifact-locks.ts), one per artifact. */
export interface SharedArtifactLocks {
  /** a shared lock: any number of replicas serve the artifact at once */
  holdShared(sha256: string): Promise<void>;
  releaseShared(sha256: string): Promise<void>;
  /** the exclusive lock, unless another replica holds it shared; false when it does (or when unsure) */
  tryExclusive(sha256: string): Promise<boolean>;
  releaseExclusive(sha256: string): Promise<void>;
  /** calls `retake` each time a new connection replaces a lost one: the locks held were lost with the old one */
  onReconnected(retake: () => void): void;
}

/**
 * Counts this process's downloads per artifact; the first of an artifact takes the shared lock, the last
 * releases it (the locks' order is kept: they go out one at a time on one connection). A lock that cannot be
 * taken (the connection is down) does not stop a download, and is taken again once connected; a claim that cannot
 * be checked is refused.
 */
export function artifactHolds(shared?: SharedArtifactLocks, onError: (err: unknown) => void = () => {}): ArtifactHolds {
  const serving = new Map<string, number>();
  // the shared locks went with the lost connection: what is still being served is held again
  shared?.onReconnected(() => {
    for (const sha256 of serving.keys()) void shared.holdShared(sha256).catch(onError);
  });
  return {
    async hold(sha256) {
      const count = (serving.get(sha256) ?? 0) + 1;
      serving.set(sha256, count);
      if (count === 1) await shared?.holdShared(sha256).catch(onError);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (serving.get(sha256) ?? 1) - 1;
        if (left > 0) {
          serving.set(sha256, left);
          return;
        }
        serving.delete(sha256);
        void shared?.releaseShared(sha256).catch(onError);
      };
    },
    async claim(sha256) {
      if (serving.has(sha256)) return undefined;
      const locks = shared;
      if (locks === undefined) return () => {};
      const taken = await locks.tryExclusive(sha256).catch((err: unknown) => {
        onError(err);
        return false;
      });
      if (!taken) return undefined;
      return () => void locks.releaseExclusive(sha256).catch(onError);
    },
  };
}
