import type { Device } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { ExpiredLink } from './presence-store.js';

/**
 * Marks Offline the devices whose replica died, in one write: each one still shown Online since before its
 * link's lease expired (one that connected to another replica since is Online again, with a newer time).
 */
export function markLinksOffline(
  devices: ResourceHandle<Device>,
  expired: readonly ExpiredLink[],
  now = new Date(),
): void {
  const time = now.toISOString();
  const stale = (doc: Device, expiredAt: string): boolean => {
    const since = doc.status?.connectionStatusChangeTime;
    return doc.status?.connectionStatus === 'CONNECTED' && (since === undefined || since <= expiredAt);
  };
  devices.patchAll(
    expired.map(
      ({ device, expiredAt }) =>
        [
          device,
          (doc: Device): Device =>
            stale(doc, expiredAt)
              ? {
                  ...doc,
                  status: {
                    ...doc.status,
                    connectionStatus: 'DISCONNECTED',
                    connectionStatusChangeTime: time,
                  },
                }
              : doc,
        ] as const,
    ),
  );
}
