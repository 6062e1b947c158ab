import type { ApiError } from '../errors/api-error.js';
import { Channel } from './channel.js';
import { decodeChannelFrame, encodeChannelFrame, errorFrame } from './channel-frame.js';
import { LinkBacklog } from './flow-control.js';
import type { FlowSettings } from './flow-control.js';
import type { FramePool } from './frame-pool.js';

/** What happened to one binary frame handed to a table. */
export type RouteOutcome = 'delivered' | 'unknown-channel' | 'malformed';

/**
 * The open channels of one link: routes binary frames to their channel by id and fails them all when the
 * link goes away. DATA for an unknown channel is answered with ERROR, so a peer whose channel was dropped stops
 * sending; anything else for one is ignored (trailing acknowledgements arrive after a sender is done).
 */
export class ChannelTable {
  private readonly channels = new Map<number, Channel>();

  constructor(
    private readonly transmit: (frame: Uint8Array) => boolean,
    private readonly flow?: FlowSettings,
    /** see ChannelOptions.linkReady */
    private readonly linkReady?: () => Promise<void> | undefined,
    /** see ChannelOptions.frames */
    private readonly frames?: FramePool,
  ) {}

  get size(): number {
    return this.channels.size;
  }

  /** Opens channel `id`; removed again by `release` (or when the link fails). */
  open(id: number): Channel {
    if (this.channels.has(id)) throw new RangeError(`channel ${id} is already open`);
    const channel = new Channel({
      id,
      transmit: this.transmit,
      ...(this.flow === undefined ? {} : { flow: this.flow }),
      ...(this.linkReady === undefined ? {} : { linkReady: this.linkReady }),
      ...(this.frames === undefined ? {} : { frames: this.frames }),
    });
    this.channels.set(id, channel);
    return channel;
  }

  get(id: number): Channel | undefined {
    return this.channels.get(id);
  }

  release(id: number): void {
    this.channels.delete(id);
  }

  route(bytes: Uint8Array): RouteOutcome {
    const decoded = decodeChannelFrame(bytes);
    if (!decoded.ok) return 'malformed';
    const { frame } = decoded;
    const channel = this.channels.get(frame.channelId);
    if (channel === undefined) {
      // only data needs stopping: acknowledgements and closes of a channel that is already done are normal
      if (frame.kind === 'DATA') {
        this.transmit(
          encodeChannelFrame(
            errorFrame(frame.channelId, { status: 'NOT_FOUND', message: `channel ${frame.channelId} is not open` }),
          ),
        );
      }
      return 'unknown-channel';
    }
    channel.receive(frame);
    return 'delivered';
  }

  /** Fails and forgets every channel (the link closed). */
  failAll(error: ApiError): void {
    for (const channel of this.channels.values()) channel.fail(error);
    this.channels.clear();
  }
}

/**
 * The channel table of a link whose `send` calls `sent` once its socket took the frame (or failed to): channel data
 * waits while the link has much queued (LinkBacklog), and the frames channels fill from `frames` go back to it then.
 */
export function linkChannelTable(
  send: (frame: Uint8Array, sent: () => void) => boolean,
  flow: FlowSettings | undefined,
  frames: FramePool,
): ChannelTable {
  const backlog = new LinkBacklog();
  const transmit = (frame: Uint8Array): boolean => {
    const untrack = backlog.track(frame.length);
    const sent = (): void => {
      untrack();
      frames.give(frame);
    };
    if (send(frame, sent)) return true;
    sent();
    return false;
  };
  return new ChannelTable(transmit, flow, backlog.ready, frames);
}
