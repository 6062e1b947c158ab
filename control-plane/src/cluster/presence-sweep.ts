import type { LeaderJob } from './leadership.js';
import type { ExpiredLink, PresenceStore } from './presence-store.js';

export interface PresenceSweepOptions {
  store: PresenceStore;
  everyMs: number;
  /** false until this replica can mark devices Offline (nothing is swept before) */
  ready(): boolean;
  /** marks the devices Offline, each unless another replica claimed it since they were read (offline-marking.ts) */
  markOffline(expired: readonly ExpiredLink[]): void;
  onError(err: unknown, what: string): void;
}

/**
 * The leader's job of noticing dead replicas: every `everyMs` it marks Offline the devices of the replicas whose
 * lease expired (a dead replica cannot), then removes those replicas with their devices' links; a leader dying
 * in between leaves both to the next sweep. An expired lease is not renewed (its replica drops its links). A lease of 1.5 heartbeats,
 * renewed every half heartbeat, expires at most 1.5 heartbeats after its replica died; swept every half
 * heartbeat, its devices are Offline within two heartbeats (plus up to a cluster poll when the leader died).
 */
export function presenceSweepJob(options: PresenceSweepOptions): LeaderJob {
  return {
    name: 'presence sweep',
    start() {
      let sweeping = false;
      const timer = setInterval(() => {
        if (sweeping || !options.ready()) return;
        sweeping = true;
        const { store } = options;
        store
          .expired()
          .then(async (expired) => {
            if (expired.length === 0) return;
            // Offline first, then forgotten: a leader that dies in between leaves both to the next one
            options.markOffline(expired);
            await store.forget([...new Set(expired.map((link) => link.replica))]);
          })
          .catch((err) => options.onError(err, 'sweeping expired presence leases'))
          .finally(() => (sweeping = false));
      }, options.everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
