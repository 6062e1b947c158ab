import type { Device } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { ExpiredLink, UnclaimedLinks } from './presence-store.js';

export interface OfflineMarking {
  devices: ResourceHandle<Device>;
  /** runs `fn` in one engine transaction (the devices' writes join it) */
  transaction<R>(fn: () => R): R;
  unclaimed: UnclaimedLinks;
}

/**
 * Marks Offline the devices whose replica died, in one transaction: each one still shown Online whose presence
 * row, locked in that transaction, still holds the dead replica's claim. A device claimed since by another
 * replica stays Online, even when that replica's Connected write came before the lease expired (and so looks
 * older); a claim racing this write waits for its commit, and its replica writes Connected after the claim
 * (presence-leases.ts), so after this Offline.
 */
export function markLinksOffline(marking: OfflineMarking, expired: readonly ExpiredLink[], now = new Date()): void {
  const time = now.toISOString();
  const offline = (doc: Device): Device =>
    doc.status?.connectionStatus === 'CONNECTED'
      ? { ...doc, status: { ...doc.status, connectionStatus: 'DISCONNECTED', connectionStatusChangeTime: time } }
      : doc;
  marking.transaction(() => {
    const unclaimed = marking.unclaimed.lock(expired);
    marking.devices.patchAll(unclaimed.map(({ device }) => [device, offline] as const));
  });
}
