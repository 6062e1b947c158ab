import { CHANNEL_FRAME_HEADER_BYTES } from './channel-frame.js';
import { DEFAULT_FLOW } from './flow-control.js';
import type { FlowSettings } from './flow-control.js';

/** Frames smaller than this are allocated each time: a pooled buffer is worth it only for bulk data. */
const POOLED_FROM_BYTES = 64 * 1024;
/** Free buffers a pool keeps at most of each size (powers of two up to a full frame): at most 8 MiB with 1 MiB frames. */
const KEEP_FREE = 4;

/**
 * The memory of a link's large channel frames, reused once the link's socket took them. Every buffer allocated
 * outside V8's heap counts towards its external memory, and each 64 MB of it starts a full garbage collection,
 * whose cost grows with the process's heap: a control plane copying forwarded bytes into a new frame per
 * megabyte spent more time collecting than relaying. Reused frames allocate nothing.
 *
 * `take` lends a buffer; the link `give`s it back once sent (or once sending failed). Buffers of other origins are
 * ignored by `give`, so a link can give back every frame it sent.
 */
export class FramePool {
  /** by size: a frame takes memory of the next power of two (at most twice its size), not always a full frame's */
  private readonly free = new Map<number, ArrayBuffer[]>();
  private readonly lent = new WeakSet<ArrayBufferLike>();

  /** the largest frame pooled (larger ones are allocated each time): a full DATA frame of the links' flow */
  private readonly frameBytes: number;

  constructor(flow: FlowSettings = DEFAULT_FLOW) {
    this.frameBytes = CHANNEL_FRAME_HEADER_BYTES + flow.maxFrameBytes;
  }

  /** Memory of exactly `bytes` bytes, starting at offset 0 of an ArrayBuffer of its own (never a shared slab). */
  readonly take = (bytes: number): Uint8Array => {
    if (bytes < POOLED_FROM_BYTES || bytes > this.frameBytes) return Buffer.allocUnsafeSlow(bytes);
    const size = Math.min(this.frameBytes, 2 ** Math.ceil(Math.log2(bytes)));
    const memory = this.free.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size).buffer;
    this.lent.add(memory);
    return Buffer.from(memory, 0, bytes);
  };

  /** Takes back a frame `take` lent once nothing reads it any more (its socket took it); ignores any other. */
  give(frame: Uint8Array): void {
    const memory = frame.buffer;
    if (!this.lent.delete(memory)) return;
    let free = this.free.get(memory.byteLength);
    if (free === undefined) this.free.set(memory.byteLength, (free = []));
    if (free.length < KEEP_FREE) free.push(memory as ArrayBuffer);
  }
}
