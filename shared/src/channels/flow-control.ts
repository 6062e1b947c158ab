/** Credit-based flow control of one direction of a channel. */
export interface FlowSettings {
  /** bytes a sender may have sent beyond the receiver's last acknowledgement */
  windowBytes: number;
  /** the receiver acknowledges once it has consumed this many bytes since its last acknowledgement */
  ackEveryBytes: number;
  /** largest DATA payload */
  maxFrameBytes: number;
  /**
   * what a receiver accepts beyond its last acknowledgement (the window when not given): at least the window of
   * every peer it may meet, since a peer of another version may send further ahead than this side would
   */
  receiveLimitBytes?: number;
}

/**
 * Frames of 1 MiB (a file's chunk record each) and a window of 4: enough in flight to keep a fast link busy, and
 * little enough held in memory that the bytes in flight die young (a large window keeps them alive across
 * garbage collections, which then turn into full ones). Agents and control planes before this setting sent up to
 * 16 MiB ahead in frames of 256 KiB: a receiver still takes that.
 */
export const DEFAULT_FLOW: FlowSettings = {
  windowBytes: 4 * 1024 * 1024,
  ackEveryBytes: 1024 * 1024,
  maxFrameBytes: 1024 * 1024,
  receiveLimitBytes: 16 * 1024 * 1024,
};

/**
 * A link with more than this queued (not yet taken by the kernel) holds channel data back (ChannelOptions.linkReady):
 * two frames, so that the socket always has the next one at hand while the link's own messages wait behind at most
 * a few milliseconds of data.
 */
export const LINK_BACKLOG_BYTES = 2 * 1024 * 1024;

/**
 * The bytes a link has queued (handed to its WebSocket, not yet taken by the kernel), as channels' `linkReady`
 * sees them: every frame is counted with `track` when it is sent and uncounted by the callback `track` answers,
 * which the link calls once its socket took the frame (`ws.send`'s callback). Writers held back wake in the
 * callback that brings the queue down to half the limit: no polling, so no idle gap between a drained queue and
 * the next frame.
 */
export class LinkBacklog {
  private queued = 0;
  private waiters: (() => void)[] = [];

  constructor(private readonly limit = LINK_BACKLOG_BYTES) {}

  /** bytes sent and not yet taken by the socket */
  get bytes(): number {
    return this.queued;
  }

  /** Counts `bytes` handed to the link; call the answer once the socket took them (or the send failed). */
  track(bytes: number): () => void {
    this.queued += bytes;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.queued -= bytes;
      if (this.queued <= this.limit / 2 && this.waiters.length > 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** `linkReady`: undefined while the queue is within the limit, else a promise that settles once it drained. */
  readonly ready = (): Promise<void> | undefined => {
    if (this.queued <= this.limit) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  };
}

export function checkFlowSettings(settings: FlowSettings): FlowSettings {
  const { windowBytes, ackEveryBytes, maxFrameBytes, receiveLimitBytes = windowBytes } = settings;
  if (!(maxFrameBytes > 0 && ackEveryBytes > 0 && windowBytes >= maxFrameBytes && ackEveryBytes <= windowBytes)) {
    throw new RangeError('flow settings need 0 < maxFrameBytes <= windowBytes and 0 < ackEveryBytes <= windowBytes');
  }
  if (receiveLimitBytes < windowBytes) throw new RangeError('flow settings need receiveLimitBytes >= windowBytes');
  return settings;
}

/** The sender's side: how much it may still send. */
export class SendWindow {
  private sentBytes = 0;
  private ackedBytes = 0;

  constructor(private readonly windowBytes: number) {}

  get sent(): number {
    return this.sentBytes;
  }

  /** bytes that may be sent now */
  get credit(): number {
    return this.windowBytes - (this.sentBytes - this.ackedBytes);
  }

  /** Records `n` bytes sent; their offset is returned. Sending beyond the credit is a bug of the caller. */
  take(n: number): number {
    if (n > this.credit) throw new RangeError(`sending ${n} bytes with only ${this.credit} of credit`);
    const offset = this.sentBytes;
    this.sentBytes += n;
    return offset;
  }

  /** Applies an acknowledgement; false when it acknowledges bytes never sent. Older acknowledgements change nothing. */
  acknowledge(offset: number): boolean {
    if (offset > this.sentBytes) return false;
    if (offset > this.ackedBytes) this.ackedBytes = offset;
    return true;
  }
}

export type ReceiveVerdict = 'ok' | 'out-of-order' | 'overflow';

/** The receiver's side: checks what arrives and decides when to acknowledge what was consumed. */
export class ReceiveWindow {
  private receivedBytes = 0;
  private consumedBytes = 0;
  private ackedBytes = 0;

  constructor(private readonly settings: Pick<FlowSettings, 'windowBytes' | 'ackEveryBytes' | 'receiveLimitBytes'>) {}

  get received(): number {
    return this.receivedBytes;
  }

  /** Checks a DATA frame: it must continue the stream and stay within the receive limit. */
  accept(offset: number, length: number): ReceiveVerdict {
    if (offset !== this.receivedBytes) return 'out-of-order';
    const limit = this.settings.receiveLimitBytes ?? this.settings.windowBytes;
    if (offset + length - this.ackedBytes > limit) return 'overflow';
    this.receivedBytes += length;
    return 'ok';
  }

  /**
   * The offset to acknowledge when the consumer has caught up and waits for more, if anything is unacknowledged:
   * a sender whose window is smaller than `ackEveryBytes` is never left waiting for an acknowledgement.
   */
  idle(): number | undefined {
    if (this.consumedBytes === this.ackedBytes) return undefined;
    this.ackedBytes = this.consumedBytes;
    return this.ackedBytes;
  }

  /** Records `n` bytes handed to the consumer; returns the offset to acknowledge now, if one is due. */
  consume(n: number): number | undefined {
    this.consumedBytes += n;
    if (this.consumedBytes - this.ackedBytes < this.settings.ackEveryBytes) return undefined;
    this.ackedBytes = this.consumedBytes;
    return this.ackedBytes;
  }
}
