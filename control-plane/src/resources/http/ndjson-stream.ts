import type { Response } from 'express';
import { ApiError, internalError } from '@outpost/shared';
import { isSerialized } from '../watch/watch-types.js';

const KEEPALIVE_MS = 15_000;

/**
 * Streams an async iterator as newline-delimited JSON. The first message is awaited before any header is sent,
 * so a request refused up front gets an ordinary error response; an error later ends the stream with an
 * `{"error": ...}` line. Honours backpressure: nothing more is pulled while the socket is full.
 */
export async function streamNdjson<T>(
  res: Response,
  iterator: AsyncIterator<T>,
  controller: AbortController,
  onError: (err: unknown) => void,
  shape: (value: T) => unknown = (value) => value,
): Promise<void> {
  const first = await iterator.next(); // throws straight to the caller's error handler
  res.status(200);
  res.setHeader('Content-Type', 'application/x-ndjson');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const keepalive = setInterval(() => res.write('\n'), KEEPALIVE_MS);
  const closed = (): void => controller.abort();
  res.on('close', closed);
  try {
    let step = first;
    while (!step.done) {
      const value = shape(step.value);
      const line = isSerialized(value) ? value.ndjson : JSON.stringify(value);
      if (!res.write(line + '\n')) {
        await drainedOrAborted(res, controller.signal);
      }
      if (controller.signal.aborted) break;
      step = await iterator.next();
    }
  } catch (err) {
    if (!controller.signal.aborted) {
      const apiError = err instanceof ApiError ? err : internalError('watch failed');
      if (!(err instanceof ApiError)) onError(err);
      res.write(JSON.stringify(apiError.toBody()) + '\n');
    }
  } finally {
    clearInterval(keepalive);
    res.off('close', closed);
    controller.abort();
    await iterator.return?.(undefined);
    res.end();
  }
}

/**
 * Resolves once the response drains or the stream is aborted, and removes both listeners either way: a
 * listener left on the signal at every wait would pile up on a stream that often falls behind.
 */
function drainedOrAborted(res: Response, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done);
  });
}
