import { unavailable } from '@outpost/shared';
import type { ChannelService, FlowSettings } from '@outpost/shared';
import type { OpenChannel } from '../gateway/channels/channel-hub.js';
import type { LinksElsewhere } from '../gateway/links-elsewhere.js';
import type { LinkHolder } from '../resources/storage/presence-store.js';
import { RelayLink } from './relay-link.js';

export interface CommandRouterOptions {
  /** this replica's id: a record naming it is stale (the link ended here) */
  replica: string;
  locate(device: string): Promise<LinkHolder | undefined>;
  /** the cluster secret (read at start) */
  secret(): string | undefined;
  flow?: FlowSettings;
  /** the PEM of the certificate authorities trusted for replicas serving TLS (the system's when undefined) */
  ca?: string;
}

/**
 * Sends a command or opens a channel for a device whose link another replica holds: looks the device up in the
 * presence record and goes over a relay WebSocket to that replica (one per replica, kept open and shared by
 * all requests). A device no live replica holds is offline: UNAVAILABLE, as on a single control plane.
 */
export class CommandRouter implements LinksElsewhere {
  private readonly links = new Map<string, Promise<RelayLink>>();
  private closed = false;

  constructor(private readonly options: CommandRouterOptions) {}

  async sendCommand(device: string, command: string, args: unknown, timeoutMs: number): Promise<unknown> {
    const link = await this.linkFor(device, `device "${device}" is offline: the command needs it connected`);
    return link.command(device, command, args, timeoutMs);
  }

  async openChannel(device: string, service: ChannelService, args: unknown, timeoutMs: number): Promise<OpenChannel> {
    const link = await this.linkFor(device, `device "${device}" is offline: it must be connected for this`);
    return link.openChannel(device, service, args, timeoutMs);
  }

  close(): void {
    this.closed = true;
    for (const link of this.links.values()) void link.then((l) => l.close()).catch(() => undefined);
    this.links.clear();
  }

  private async linkFor(device: string, offline: string): Promise<RelayLink> {
    const holder = await this.options.locate(device);
    const secret = this.options.secret();
    if (holder === undefined || holder.replica === this.options.replica || secret === undefined || this.closed) {
      throw unavailable(offline);
    }
    const existing = this.links.get(holder.address);
    if (existing !== undefined) {
      const link = await existing.catch(() => undefined);
      if (link?.isOpen === true) return link;
      if (this.links.get(holder.address) === existing) this.links.delete(holder.address);
    }
    const connecting = RelayLink.connect(holder.address, secret, this.options.flow, this.options.ca);
    this.links.set(holder.address, connecting);
    connecting.catch(() => {
      if (this.links.get(holder.address) === connecting) this.links.delete(holder.address);
    });
    return connecting;
  }
}
