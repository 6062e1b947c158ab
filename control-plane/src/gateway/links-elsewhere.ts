import type { ChannelService } from '@outpost/shared';
import type { OpenChannel } from './channels/channel-hub.js';

/**
 * Where the device links this gateway holds are recorded for the other replicas on one database
 * (cluster/presence-leases.ts). Without it (SQLite, one process) a link that ends marks its device Offline at once.
 */
export interface LinkPresence {
  /**
   * A link to the device opened here (it replaces any the device had here or elsewhere); `markOnline` runs once
   * the link is recorded, unless it ended or was replaced before.
   */
  connected(device: string, markOnline: () => void): void;
  /**
   * The link ended: the device is marked Offline unless a newer link of it is held elsewhere, by `markOffline`
   * when the link was never recorded, else by the record's own release (after the device's queued status).
   */
  disconnected(device: string, markOffline: () => void): void;
}

/** Reaches devices whose link another replica holds; UNAVAILABLE when none does. */
export interface LinksElsewhere {
  sendCommand(device: string, command: string, args: unknown, timeoutMs: number): Promise<unknown>;
  openChannel(device: string, service: ChannelService, args: unknown, timeoutMs: number): Promise<OpenChannel>;
}
