import type { Socket } from 'node:net';
import type { Channel } from '@outpost/shared';

/**
 * How much one read of the socket may take. A read takes what the kernel has queued, up to this: on a busy
 * connection the frames are this large (node's own reads stop at 64 KiB).
 */
const READ_BYTES = 512 * 1024;
/**
 * A read this large keeps its buffer, sent in place as a frame; a smaller one is copied into a buffer of its size,
 * so that a trickle of small reads (keystrokes, requests) does not pin a read buffer each.
 */
const KEEP_READS_FROM_BYTES = 64 * 1024;
/** Reads waiting for the channel's credit beyond this pause the socket (TCP then slows its sender). */
const MAX_PENDING_WRITES = 2;

/**
 * A socket's bytes into a channel, read with net's `onread` straight into the channel's payload buffers (room for
 * the frame header before the bytes): no copy on the way and no ArrayBuffer per 64 KiB chunk, which on a fast
 * connection is most of the work. Give `onread` to `net.connect`, `attach` the socket once it is connected (from
 * then on its errors are the reader's), then `run`.
 */
export class SocketChannelReader {
  /** the buffer the next read goes to */
  private spare: Uint8Array | undefined;
  private pending = 0;
  private socket: Socket | undefined;
  private paused = false;
  private writes: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  private ended: Promise<void> = Promise.resolve();
  /** settles once the socket closed */
  closed: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: Channel,
    private readonly readBytes = READ_BYTES,
  ) {}

  /** for `net.connect`'s options */
  readonly onread = {
    buffer: (): Uint8Array => (this.spare ??= this.channel.payloadBuffer(this.readBytes)),
    callback: (bytesRead: number, buffer: Uint8Array): boolean => this.took(bytesRead, buffer),
  };

  attach(socket: Socket): void {
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    this.ended = new Promise<void>((resolve, reject) => {
      socket.once('end', resolve);
      socket.on('error', reject);
      socket.once('close', () => reject(new Error('the connection closed before its end')));
    });
    // a failure before `run` is its answer
    this.ended.catch(() => undefined);
  }

  /** Relays until the socket's end, then ends the channel's side; rejects when the channel or the socket failed. */
  async run(): Promise<void> {
    // flowing: no 'data' comes with `onread`, but 'end' is emitted only to a flowing stream
    if (!this.paused) this.socket?.resume();
    const socketFailure = await this.ended.then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    await this.writes;
    // a failed write destroys the socket: that failure, not the close it caused, is the one to tell
    const failure = this.failure ?? socketFailure;
    if (failure !== undefined) throw failure.error;
    await this.channel.end();
  }

  private took(bytesRead: number, buffer: Uint8Array): boolean {
    let payload: Uint8Array;
    if (bytesRead >= KEEP_READS_FROM_BYTES) {
      payload = buffer.subarray(0, bytesRead);
      this.spare = undefined;
    } else {
      payload = this.channel.payloadBuffer(bytesRead);
      payload.set(buffer.subarray(0, bytesRead));
    }
    this.pending++;
    this.writes = this.channel.write(payload).then(
      () => this.settled(),
      (error: unknown) => {
        this.failure ??= { error };
        this.socket?.destroy();
      },
    );
    if (this.pending < MAX_PENDING_WRITES) return true;
    this.paused = true;
    return false;
  }

  private settled(): void {
    this.pending--;
    if (!this.paused || this.pending >= MAX_PENDING_WRITES) return;
    this.paused = false;
    this.socket?.resume();
  }
}
