import { CHUNK_RECORD_BYTES } from '@outpost/shared';

/**
 * The chunk buffers of an upload (encodeTree's allocator), each taken back once the socket has written it and
 * handed out again: reading a large file then allocates a few buffers, not one per chunk.
 */
export class ChunkPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly own = new WeakSet<ArrayBufferLike>();

  /** Memory for `length` bytes: a free buffer of the pool when one fits, else a fresh one. */
  readonly allocate = (length: number): Uint8Array => {
    if (length > CHUNK_RECORD_BYTES) return Buffer.allocUnsafe(length);
    let memory = this.free.pop();
    if (memory === undefined) {
      memory = new ArrayBuffer(CHUNK_RECORD_BYTES);
      this.own.add(memory);
    }
    return new Uint8Array(memory, 0, length);
  };

  /** Takes back the memory of `piece` once nothing reads it any more; memory the pool did not hand out is ignored. */
  readonly release = (piece: Uint8Array): void => {
    const memory = piece.buffer;
    if (memory instanceof ArrayBuffer && this.own.has(memory) && !this.free.includes(memory)) this.free.push(memory);
  };
}
