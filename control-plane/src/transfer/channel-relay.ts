import type { Response } from 'express';
import type { Channel } from '@outpost/shared';

/** Resolves once `res` may take more (after a `write` returned false), or when the response is gone. */
export function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A response holding more than this (not yet taken by the socket) is left to drain before more is written: about
 * a frame, so that the socket has the next one at hand without the relay holding much.
 */
const RESPONSE_BACKLOG_BYTES = 1024 * 1024;

/**
 * Writes what a channel delivers to an HTTP response, reading the channel only as fast as the client takes the
 * bytes (the channel's acknowledgements then slow the device down). A channel that fails after the first byte
 * ends the response abruptly, so the client never takes a cut stream for a whole one.
 */
export async function relayChannelToResponse(channel: Channel, res: Response): Promise<void> {
  try {
    for await (const chunk of channel) {
      if (res.destroyed) return;
      if (!res.write(chunk) && res.writableLength > RESPONSE_BACKLOG_BYTES) await drained(res);
    }
  } catch (err) {
    res.destroy(err instanceof Error ? err : undefined);
    return;
  }
  res.end();
}

/** Aborts the channel when the client goes away before the response finished. */
export function abortWhenClientLeaves(res: Response, channel: Channel): () => void {
  const onClose = (): void => {
    if (!res.writableFinished) channel.abort({ status: 'ABORTED', message: 'the client went away' });
  };
  res.on('close', onClose);
  return () => res.off('close', onClose);
}
