import type { Readable } from 'node:stream';

/**
 * A stream's chunks gathered into batches of about `targetBytes` (never waiting for more than has arrived), each
 * chunk as the stream delivered it (no concatenation): a transfer relayed as a few large frames instead of many
 * socket-sized ones. The stream is paused while a batch is full and the consumer has not taken it.
 */
export async function* readBatches(stream: Readable, targetBytes: number): AsyncGenerator<Buffer[]> {
  let pending: Buffer[] = [];
  let size = 0;
  let ended = false;
  let closed = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    pending.push(chunk);
    size += chunk.length;
    if (size >= targetBytes) stream.pause();
    wake?.();
  };
  const onEnd = (): void => {
    ended = true;
    wake?.();
  };
  const onClose = (): void => {
    closed = true;
    wake?.();
  };
  const onError = (err: unknown): void => {
    failure = err;
    wake?.();
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('close', onClose);
  stream.on('error', onError);
  try {
    for (;;) {
      if (pending.length > 0) {
        const batch = pending;
        pending = [];
        size = 0;
        yield batch;
        stream.resume();
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended) return;
      if (closed) throw new Error('the stream closed before its end');
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('close', onClose);
    stream.off('error', onError);
  }
}
