import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc } from '../resources/resource-table.js';
import type { ExpiredLink } from './presence-store.js';

/**
 * Marks Offline the devices whose replica died, in one write: each one still shown Online since before its
 * link's lease expired (one that connected to another replica since is Online again, with a newer time).
 */
export function markLinksOffline(devices: ResourceHandle, expired: readonly ExpiredLink[], now = new Date()): void {
  const time = now.toISOString();
  const stale = (doc: Doc, expiredAt: string): boolean => {
    const status = (doc['status'] ?? {}) as Doc;
    const since = status['connectionStatusChangeTime'];
    return status['connectionStatus'] === 'CONNECTED' && (typeof since !== 'string' || since <= expiredAt);
  };
  devices.patchAll(
    expired.map(
      ({ device, expiredAt }) =>
        [
          device,
          (doc: Doc): Doc =>
            stale(doc, expiredAt)
              ? {
                  ...doc,
                  status: {
                    ...(doc['status'] as Doc),
                    connectionStatus: 'DISCONNECTED',
                    connectionStatusChangeTime: time,
                  },
                }
              : doc,
        ] as const,
    ),
  );
}
