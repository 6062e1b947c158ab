import type { Readable } from 'node:stream';

/**
 * What a stream has buffered, taken in batches of up to about `targetBytes` without waiting for more than is
 * there: a transfer relayed as a few large frames instead of many socket-sized ones.
 */
export async function* readBatches(stream: Readable, targetBytes: number): AsyncGenerator<Buffer[]> {
  let wake: (() => void) | undefined;
  let failure: unknown;
  let finished = false;
  const onReadable = (): void => wake?.();
  const onEnd = (): void => {
    finished = true;
    wake?.();
  };
  const onError = (err: unknown): void => {
    failure = err;
    wake?.();
  };
  stream.on('readable', onReadable);
  stream.on('end', onEnd);
  stream.on('close', onEnd);
  stream.on('error', onError);
  try {
    for (;;) {
      const batch: Buffer[] = [];
      let size = 0;
      let chunk: Buffer | null;
      while (size < targetBytes && (chunk = stream.read() as Buffer | null) !== null) {
        batch.push(chunk);
        size += chunk.length;
      }
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (stream.readableEnded) return;
      if (finished) throw new Error('the stream closed before its end');
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stream.off('readable', onReadable);
    stream.off('end', onEnd);
    stream.off('close', onEnd);
    stream.off('error', onError);
  }
}
