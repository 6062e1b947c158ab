import { ApiError, failedPrecondition, internalError, unavailable } from '../errors/api-error.js';
import {
  CHANNEL_FRAME_HEADER_BYTES,
  ackFrame,
  closeFrame,
  encodeChannelFrame,
  encodeChannelFrameParts,
  errorFrame,
  errorOfFrame,
  writeChannelFrameHeader,
} from './channel-frame.js';
import type { ChannelErrorDetail, ChannelFrame } from './channel-frame.js';
import { DEFAULT_FLOW, ReceiveWindow, SendWindow, checkFlowSettings } from './flow-control.js';
import type { FlowSettings } from './flow-control.js';
import type { FramePool } from './frame-pool.js';

export interface ChannelOptions {
  id: number;
  /** puts one encoded frame on the link; false when the link is gone */
  transmit(frame: Uint8Array): boolean;
  /**
   * When the link has too much queued already, a promise that settles once it has room: data then waits, so the
   * link's own messages (heartbeats, status) never queue behind more than a little channel data.
   */
  linkReady?: () => Promise<void> | undefined;
  flow?: FlowSettings;
  /** the link's reused frame memory (it gives each frame back once its socket took it) */
  frames?: FramePool;
}

/**
 * One end of a bidirectional byte channel multiplexed over the agent link. Writes wait for the peer's
 * credit (window and acknowledgements), so a transfer never holds more than a window in flight and the
 * link's text messages keep interleaving; received bytes are acknowledged only as they are consumed, so a
 * slow consumer slows the sender instead of filling memory. Each direction ends with `end()` (CLOSE);
 * `abort()` fails both directions at both ends (ERROR).
 */
export class Channel implements AsyncIterable<Uint8Array> {
  readonly id: number;
  private readonly transmit: (frame: Uint8Array) => boolean;
  private readonly linkReady: () => Promise<void> | undefined;
  private readonly flow: FlowSettings;
  private readonly frames: FramePool | undefined;
  private readonly sendWindow: SendWindow;
  private readonly receiveWindow: ReceiveWindow;
  private readonly queue: Uint8Array[] = [];
  private remoteEnded = false;
  private localEnded = false;
  private failure: ApiError | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriters: (() => void)[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** the memory of the buffers `payloadBuffer` handed out and `write` has not sent yet */
  private readonly framed = new WeakSet<ArrayBufferLike>();
  private markFailed: () => void = () => {};
  /** settles when the channel fails */
  private readonly failed = new Promise<void>((resolve) => (this.markFailed = resolve));

  constructor(options: ChannelOptions) {
    this.id = options.id;
    this.transmit = options.transmit;
    this.linkReady = options.linkReady ?? (() => undefined);
    this.frames = options.frames;
    this.flow = checkFlowSettings(options.flow ?? DEFAULT_FLOW);
    this.sendWindow = new SendWindow(this.flow.windowBytes);
    this.receiveWindow = new ReceiveWindow(this.flow);
  }

  /** the error that ended the channel, if one did */
  get error(): ApiError | undefined {
    return this.failure;
  }

  /** bytes written so far */
  get bytesSent(): number {
    return this.sendWindow.sent;
  }

  /**
   * A buffer for up to `length` bytes that `write` sends without copying them, when they fit one frame: it keeps
   * room for the frame header just before the bytes. Fill it (or its start, passing `write` that part), then leave
   * it alone: the link may still be sending it after `write` resolved.
   */
  payloadBuffer(length: number): Uint8Array {
    if (length > this.flow.maxFrameBytes) return Buffer.allocUnsafe(length);
    // never from node's shared slab: the whole memory is this buffer's
    const frame =
      this.frames?.take(CHANNEL_FRAME_HEADER_BYTES + length) ??
      Buffer.allocUnsafeSlow(CHANNEL_FRAME_HEADER_BYTES + length);
    this.framed.add(frame.buffer);
    return frame.subarray(CHANNEL_FRAME_HEADER_BYTES);
  }

  /**
   * Sends `data` (one chunk, or several sent as if joined), waiting for credit as needed; rejects once the channel
   * has failed. Calls are queued in order.
   */
  write(data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    const parts = data instanceof Uint8Array ? [data] : data;
    const next = this.writing.then(() => this.writeNow(parts));
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** Ends this side's stream once every queued write is out. */
  async end(): Promise<void> {
    await this.writing;
    if (this.failure || this.localEnded) return;
    this.localEnded = true;
    this.send(closeFrame(this.id, this.sendWindow.sent));
  }

  /** Fails the channel at both ends with `detail`. */
  abort(detail: ChannelErrorDetail): void {
    if (this.failure) return;
    this.failure = new ApiError(detail.status, detail.message);
    this.transmit(encodeChannelFrame(errorFrame(this.id, detail)));
    this.wakeAll();
  }

  /** Fails this end without telling the peer (the link is gone). */
  fail(error: ApiError): void {
    if (this.failure) return;
    this.failure = error;
    this.wakeAll();
  }

  /** Takes one frame of this channel from the link. */
  receive(frame: ChannelFrame): void {
    if (this.failure) return;
    switch (frame.kind) {
      case 'DATA': {
        if (this.remoteEnded) return this.protocolError('DATA after CLOSE');
        const verdict = this.receiveWindow.accept(frame.offset, frame.payload.length);
        if (verdict !== 'ok') return this.protocolError(`DATA frame ${verdict} at offset ${frame.offset}`);
        if (frame.payload.length > 0) this.queue.push(frame.payload);
        this.wakeReader?.();
        return;
      }
      case 'ACK':
        if (!this.sendWindow.acknowledge(frame.offset)) return this.protocolError('ACK of bytes never sent');
        for (const wake of this.wakeWriters.splice(0)) wake();
        return;
      case 'CLOSE':
        if (frame.offset !== this.receiveWindow.received) {
          return this.protocolError(`CLOSE at ${frame.offset} bytes, but ${this.receiveWindow.received} arrived`);
        }
        this.remoteEnded = true;
        this.wakeReader?.();
        return;
      case 'ERROR':
        this.fail(errorAs(errorOfFrame(frame)));
        return;
    }
  }

  /** The peer's bytes in order; ends at its CLOSE, throws the channel's error. Read it once. */
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        const ack = this.receiveWindow.consume(chunk.length);
        if (ack !== undefined) this.send(ackFrame(this.id, ack));
        yield chunk;
        continue;
      }
      if (this.remoteEnded) return;
      const caughtUp = this.receiveWindow.idle();
      if (caughtUp !== undefined) this.send(ackFrame(this.id, caughtUp));
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
      this.wakeReader = undefined;
    }
  }

  /** The peer's whole stream as one buffer (for small answers). */
  async readAll(limitBytes = 1024 * 1024): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of this) {
      total += chunk.length;
      if (total > limitBytes) throw internalError(`channel answer larger than ${limitBytes} bytes`);
      parts.push(chunk);
    }
    const all = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      all.set(part, at);
      at += part.length;
    }
    return all;
  }

  private async writeNow(parts: readonly Uint8Array[]): Promise<void> {
    const [only] = parts;
    if (parts.length === 1 && only !== undefined && this.isPayloadBuffer(only)) return this.writeInPlace(only);
    let remaining = parts.filter((p) => p.length > 0);
    let left = remaining.reduce((n, p) => n + p.length, 0);
    while (left > 0) {
      if (this.failure) throw this.failure;
      if (this.localEnded) throw failedPrecondition(`channel ${this.id} already ended`);
      const credit = this.sendWindow.credit;
      if (credit <= 0) {
        await new Promise<void>((resolve) => this.wakeWriters.push(resolve));
        continue;
      }
      const busy = this.linkReady();
      if (busy !== undefined) {
        await Promise.race([busy, this.failed]);
        continue;
      }
      const n = Math.min(credit, this.flow.maxFrameBytes, left);
      const offset = this.sendWindow.take(n);
      if (!this.transmit(encodeChannelFrameParts('DATA', this.id, offset, remaining, n, this.frames?.take))) {
        this.fail(unavailable('the device link closed'));
      }
      remaining = dropBytes(remaining, n);
      left -= n;
    }
    if (this.failure) throw this.failure;
  }

  /** the start of a buffer from `payloadBuffer`, not sent yet */
  private isPayloadBuffer(part: Uint8Array): boolean {
    return part.byteOffset === CHANNEL_FRAME_HEADER_BYTES && part.length > 0 && this.framed.has(part.buffer);
  }

  /** Sends the start of a payload buffer as one frame, its header written in the room before it. */
  private async writeInPlace(payload: Uint8Array): Promise<void> {
    this.framed.delete(payload.buffer);
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.localEnded) throw failedPrecondition(`channel ${this.id} already ended`);
      if (this.sendWindow.credit < payload.length) {
        await new Promise<void>((resolve) => this.wakeWriters.push(resolve));
        continue;
      }
      const busy = this.linkReady();
      if (busy === undefined) break;
      await Promise.race([busy, this.failed]);
    }
    const frame = new Uint8Array(payload.buffer, 0, CHANNEL_FRAME_HEADER_BYTES + payload.length);
    writeChannelFrameHeader(frame, 'DATA', this.id, this.sendWindow.take(payload.length));
    if (!this.transmit(frame)) this.fail(unavailable('the device link closed'));
    if (this.failure) throw this.failure;
  }

  private send(frame: ChannelFrame): void {
    if (!this.transmit(encodeChannelFrame(frame))) this.fail(unavailable('the device link closed'));
  }

  private protocolError(problem: string): void {
    this.abort({ status: 'INTERNAL', message: `channel protocol error: ${problem}` });
  }

  private wakeAll(): void {
    this.markFailed();
    this.wakeReader?.();
    for (const wake of this.wakeWriters.splice(0)) wake();
  }
}

/** `parts` without their first `n` bytes. */
function dropBytes(parts: readonly Uint8Array[], n: number): Uint8Array[] {
  const rest = [...parts];
  let drop = n;
  while (drop > 0 && rest.length > 0) {
    const first = rest[0]!;
    if (first.length <= drop) {
      drop -= first.length;
      rest.shift();
    } else {
      rest[0] = first.subarray(drop);
      drop = 0;
    }
  }
  return rest;
}

const errorAs = (detail: ChannelErrorDetail): ApiError => new ApiError(detail.status, detail.message);
