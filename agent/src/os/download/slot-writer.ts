import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { ArtifactError } from './artifact-error.js';

/**
 * Writes a stream into a slot from `start`, hashing exactly what it writes, in order. Ending it (rather
 * than destroying it) after the source failed still writes everything it accepted, so `position` and
 * the hash always describe the same prefix of the slot. Each batch is hashed while its write runs.
 */
export class SlotWriter extends Writable {
  private nextPosition: number;

  constructor(
    private readonly file: FileHandle,
    start: number,
    private readonly hash: Hash,
    /** the image's size: writing past it is an error */
    private readonly limit: number,
    private readonly onWritten?: (position: number) => void,
  ) {
    super({ highWaterMark: 4 * 1024 * 1024 });
    this.nextPosition = start;
  }

  /** the end of what has been written (and hashed) */
  get position(): number {
    return this.nextPosition;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.writeBatch([chunk]).then(() => done(), done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.writeBatch(chunks.map((c) => c.chunk)).then(() => done(), done);
  }

  private async writeBatch(buffers: Buffer[]): Promise<void> {
    const length = buffers.reduce((total, buffer) => total + buffer.length, 0);
    if (this.nextPosition + length > this.limit) {
      throw new ArtifactError(`the server sent more than the image's ${this.limit} bytes`);
    }
    const written = writeFully(this.file, buffers, this.nextPosition);
    for (const buffer of buffers) this.hash.update(buffer);
    await written;
    this.nextPosition += length;
    this.onWritten?.(this.nextPosition);
  }
}

async function writeFully(file: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let pending = buffers;
  let at = position;
  while (pending.length > 0) {
    const { bytesWritten } = await file.writev(pending, at);
    at += bytesWritten;
    pending = remainderAfter(pending, bytesWritten);
  }
}

/** What is left of `buffers` after the first `bytes` bytes were written (a short write is rare). */
function remainderAfter(buffers: Buffer[], bytes: number): Buffer[] {
  let skip = bytes;
  const rest: Buffer[] = [];
  for (const buffer of buffers) {
    if (skip >= buffer.length) {
      skip -= buffer.length;
      continue;
    }
    rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
    skip = 0;
  }
  return rest;
}
