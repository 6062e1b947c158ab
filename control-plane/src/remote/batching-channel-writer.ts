import type { Channel } from '@outpost/shared';

/**
 * Writes a client's messages into a channel, joining those that arrive while the previous write waits (for credit,
 * for the device's link) into one write: one copy into frames as large as the channel allows instead of a frame per
 * message (a command line sends a message per 64 KiB read from its socket). Nothing waits for a batch to fill: a
 * message that finds the channel idle goes out at once.
 */
export class BatchingChannelWriter {
  private batch: Uint8Array[] = [];
  /** the write of `batch`, once one is waiting */
  private batchWritten: Promise<void> | undefined;
  /** settles once everything handed over so far is written (or failed) */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(private readonly channel: Channel) {}

  /** Resolves once `bytes` are written (with the rest of their batch); rejects when the channel failed. */
  write(bytes: Uint8Array): Promise<void> {
    this.batch.push(bytes);
    if (this.batchWritten !== undefined) return this.batchWritten;
    const written = this.previous.then(() => {
      const parts = this.batch;
      this.batch = [];
      this.batchWritten = undefined;
      return this.channel.write(parts);
    });
    this.batchWritten = written;
    this.previous = written.catch(() => undefined);
    return written;
  }

  /** Ends the channel's side once everything handed over is written. */
  end(): Promise<void> {
    const ended = this.previous.then(() => this.channel.end());
    this.previous = ended.catch(() => undefined);
    return ended;
  }
}
