import type { LeaderJob } from './leadership.js';
import type { ExpiredLink, PresenceStore } from './presence-store.js';

export interface PresenceSweepOptions {
  store: PresenceStore;
  everyMs: number;
  /** false until this replica can mark devices Offline (nothing is swept before) */
  ready(): boolean;
  /** marks the devices Offline, each unless it connected again after its link's lease expired */
  markOffline(expired: readonly ExpiredLink[]): void;
  onError(err: unknown, what: string): void;
}

/**
 * The leader's job of noticing dead replicas: every `everyMs` it removes the replicas whose lease expired, with
 * their devices' links, and marks those devices Offline (a dead replica cannot). A lease of 1.5 heartbeats,
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
        options.store
          .sweep()
          .then((expired) => {
            if (expired.length > 0) options.markOffline(expired);
          })
          .catch((err) => options.onError(err, 'sweeping expired presence leases'))
          .finally(() => (sweeping = false));
      }, options.everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
