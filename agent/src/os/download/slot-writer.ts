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
    this.writeBatch(chunk).then(() => done(), done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.writeBatch(
      chunks.length === 1 ? (chunks[0]?.chunk ?? Buffer.alloc(0)) : Buffer.concat(chunks.map((c) => c.chunk)),
    ).then(() => done(), done);
  }

  private async writeBatch(batch: Buffer): Promise<void> {
    if (this.nextPosition + batch.length > this.limit) {
      throw new ArtifactError(`the server sent more than the image's ${this.limit} bytes`);
    }
    const written = writeFully(this.file, batch, this.nextPosition);
    this.hash.update(batch);
    await written;
    this.nextPosition += batch.length;
    this.onWritten?.(this.nextPosition);
  }
}

async function writeFully(file: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesWritten } = await file.write(buffer, offset, buffer.length - offset, position + offset);
    offset += bytesWritten;
  }
}
