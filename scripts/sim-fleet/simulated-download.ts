import { setTimeout as sleep } from 'node:timers/promises';
import type { ImageFetcher } from '../../agent/src/os/download/image-fetcher.js';

/**
 * An ImageFetcher that fetches nothing: it takes `downloadMs` (cut short when the executor aborts it, as a new
 * spec.osVersion does) and vouches for the published image. The executor's steps around it are the real ones.
 */
export function simulatedDownload(downloadMs: number): ImageFetcher {
  return async (fetch) => {
    await sleep(downloadMs, undefined, { signal: fetch.signal });
    fetch.onProgress(fetch.image.size);
    await fetch.onCheckpoint(fetch.image.size);
    fetch.onVerifying();
  };
}
