import { CHANNEL_OPEN_COMMAND, FramePool, linkChannelTable, unavailable } from '@outpost/shared';
import type { Channel, ChannelService, ChannelTable, FlowSettings } from '@outpost/shared';
import type { LinksElsewhere } from '../links-elsewhere.js';

/** Sends a command over a device's live link (the gateway's `sendCommand`). */
export type SendCommand = (deviceName: string, command: string, args: unknown, timeoutMs: number) => Promise<unknown>;

/** A channel the agent accepted: bytes flow both ways until `release`. */
export interface OpenChannel {
  channel: Channel;
  /** what the agent answered to the open (e.g. the kind and size of a download) */
  info: unknown;
  /** forgets the channel (after it ended, or to abandon it after `channel.abort`) */
  release(): void;
}

const MAX_CHANNEL_ID = 0xffff_ffff;

/**
 * The control plane's side of channels (design.md "Agent protocol"): one channel table per connected device,
 * fed by the gateway with the device's binary frames. Opening a channel is the `channel.open` command; its
 * result (the agent checked the arguments) comes before any data is relayed.
 */
export class ChannelHub {
  private readonly links = new Map<string, ChannelTable>();
  private nextId = 1;
  /** one for every link: what it keeps is bounded per process, not per device */
  private readonly frames: FramePool;

  constructor(
    private readonly sendCommand: SendCommand,
    private readonly flow?: FlowSettings,
    /** on PostgreSQL, where the channels of devices whose link another replica holds are opened */
    private readonly elsewhere: () => LinksElsewhere | undefined = () => undefined,
  ) {
    this.frames = new FramePool(flow);
  }

  /**
   * A device connected: its frames go out through `send`, which calls `sent` once its connection's socket took the
   * frame (or failed to): channel data waits while much is queued. Channels of an earlier connection fail.
   */
  attach(deviceName: string, send: (frame: Uint8Array, sent: () => void) => boolean): void {
    this.detach(deviceName, 'the device connected again');
    this.links.set(deviceName, linkChannelTable(send, this.flow, this.frames));
  }

  /** The device's link closed: its channels fail as UNAVAILABLE. */
  detach(deviceName: string, why = 'the device disconnected'): void {
    const table = this.links.get(deviceName);
    if (table === undefined) return;
    this.links.delete(deviceName);
    table.failAll(unavailable(`device "${deviceName}": ${why}`));
  }

  /** A binary frame from the device; false when it is not for an open channel. */
  route(deviceName: string, frame: Uint8Array): boolean {
    return this.links.get(deviceName)?.route(frame) === 'delivered';
  }

  /**
   * Opens a channel to one of the device's channel services, over its link here or (relayed) on the replica
   * holding it; UNAVAILABLE when it is offline.
   */
  async open(deviceName: string, service: ChannelService, args: unknown, timeoutMs = 30_000): Promise<OpenChannel> {
    const elsewhere = this.elsewhere();
    if (elsewhere !== undefined && !this.links.has(deviceName)) {
      return elsewhere.openChannel(deviceName, service, args, timeoutMs);
    }
    return this.openHere(deviceName, service, args, timeoutMs);
  }

  /** Opens a channel over the device's link on this replica only (UNAVAILABLE when it is not here). */
  async openHere(deviceName: string, service: ChannelService, args: unknown, timeoutMs = 30_000): Promise<OpenChannel> {
    const table = this.links.get(deviceName);
    if (table === undefined) throw unavailable(`device "${deviceName}" is offline: it must be connected for this`);
    const channelId = this.allocateId();
    const channel = table.open(channelId);
    let info: unknown;
    try {
      info = await this.sendCommand(deviceName, CHANNEL_OPEN_COMMAND, { channelId, service, args }, timeoutMs);
    } catch (err) {
      table.release(channelId);
      throw err;
    }
    return { channel, info, release: () => table.release(channelId) };
  }

  /** Fails every channel (the server stops). */
  closeAll(): void {
    for (const deviceName of [...this.links.keys()]) this.detach(deviceName, 'the server is stopping');
  }

  private allocateId(): number {
    const id = this.nextId;
    this.nextId = id >= MAX_CHANNEL_ID ? 1 : id + 1;
    return id;
  }
}
