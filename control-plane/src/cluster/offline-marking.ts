import type { Device } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { ExpiredLink, HeldLink, UnclaimedLinks } from '../resources/storage/presence-store.js';

export interface OfflineMarking {
  devices: ResourceHandle<Device>;
  /** runs `fn` in one engine transaction (the devices' writes join it) */
  transaction<R>(fn: () => R): R;
  unclaimed: UnclaimedLinks;
}

/** What releasing this replica's ended links needs besides the sweep's marking. */
export interface EndedLinksRelease extends OfflineMarking {
  /** the replica the links ended on */
  replica: string;
  /**
   * Writes now the status edits still queued for these devices (the agent's hello, its last reports); false
   * when that failed (they stay queued). Written after the Offline, a queued Connected would show a dead link
   * Online.
   */
  writeQueuedStatus(devices: readonly string[]): boolean;
}

/** The device shown Offline since `time`, if it was shown Online. */
function offlineAt(time: string): (doc: Device) => Device {
  return (doc) =>
    doc.status?.connectionStatus === 'CONNECTED'
      ? { ...doc, status: { ...doc.status, connectionStatus: 'DISCONNECTED', connectionStatusChangeTime: time } }
      : doc;
}

/**
 * Marks Offline the devices whose replica died, in one transaction: each one still shown Online whose presence
 * row, locked in that transaction, still holds the dead replica's claim. A device claimed since by another
 * replica stays Online, even when that replica's Connected write came before the lease expired (and so looks
 * older); a claim racing this write waits for its commit, and its replica writes Connected after the claim
 * (presence-leases.ts), so after this Offline.
 */
export function markLinksOffline(marking: OfflineMarking, expired: readonly ExpiredLink[], now = new Date()): void {
  const offline = offlineAt(now.toISOString());
  marking.transaction(() => {
    const unclaimed = marking.unclaimed.lock(expired);
    marking.devices.patchAll(unclaimed.map(({ device }) => [device, offline] as const));
  });
}

/**
 * Releases links that ended on this replica and marks their devices Offline, in one transaction: only those
 * whose presence row, locked and deleted in it, still holds this replica's claim. A device that reconnected to
 * another replica whose claim is stored stays Online (its row is left to it); a claim racing the release waits
 * for its commit, and its replica writes Connected after the claim, so after this Offline. The devices' queued
 * status edits are written first. Answers the devices released; throws when nothing was (tried again later).
 */
export function releaseEndedLinks(release: EndedLinksRelease, links: readonly HeldLink[], now = new Date()): string[] {
  if (!release.writeQueuedStatus(links.map((link) => link.device))) {
    throw new Error('the status queued for the ended links could not be written');
  }
  const offline = offlineAt(now.toISOString());
  return release.transaction(() => {
    const released = release.unclaimed.take(release.replica, links);
    release.devices.patchAll(released.map((device) => [device, offline] as const));
    return released;
  });
}
