import type { ExpiredLink, PresenceStore } from '../resources/storage/presence-store.js';

export interface PresenceSweepOptions {
  store: PresenceStore;
  everyMs: number;
  /** marks the devices Offline, each unless another replica claimed it since they were read (offline-marking.ts) */
  markOffline(expired: readonly ExpiredLink[]): void;
  onError(err: unknown, what: string): void;
}

/**
 * Notices dead replicas, on every live replica (a frozen or cut-off leader must not hold presence up): every
 * `everyMs` it marks Offline the devices of the replicas whose lease expired (a dead replica cannot), then removes
 * those replicas with their devices' links; a replica dying in between leaves both to the next sweep. Sweeps of
 * several replicas at once mark each device Offline once: the marking locks the presence rows and writes only a
 * device still shown Online (offline-marking.ts), so the second finds nothing to change. An expired lease is not
 * renewed (its replica drops its links). A lease of 1.5 heartbeats, renewed every half heartbeat, expires at most
 * 1.5 heartbeats after its replica died; swept every half heartbeat, its devices are Offline within two
 * heartbeats. Returns what stops the sweep.
 */
export function startPresenceSweep(options: PresenceSweepOptions): () => void {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    const { store } = options;
    store
      .expired()
      .then(async (expired) => {
        if (expired.length === 0) return;
        // Offline first, then forgotten: a replica that dies in between leaves both to the next sweep
        options.markOffline(expired);
        await store.forget([...new Set(expired.map((link) => link.replica))]);
      })
      .catch((err) => options.onError(err, 'sweeping expired presence leases'))
      .finally(() => (sweeping = false));
  }, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
