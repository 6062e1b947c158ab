/**
 * A dedicated worker that keeps the fleet counts of a parent: it holds the stateless watch of the parent's
 * devices (at 100,000 devices, megabytes to parse) off the page's main thread, and posts the state of its stream
 * and the counts (at most twice a second while the snapshot arrives, then at each change).
 *
 * In: `{ path, apiKey, fieldMask }`. Out: `{ kind: 'state', state, error? }` and
 * `{ kind: 'counts', summary, current }`.
 */
import { FleetCounts } from './api/live-collections.js';
import { LiveWatch } from './api/watch.js';

const SNAPSHOT_POST_INTERVAL_MS = 500;

/** @typedef {{ kind: 'state', state: import('./api/watch.js').StreamState, error?: { status: string, code: number, message: string } } | { kind: 'counts', summary: ReturnType<FleetCounts['summary']>, current: boolean }} CountMessage */

/** @param {CountMessage} message */
const post = (message) => postMessage(message);

addEventListener('message', (event) => {
  const { path, apiKey, fieldMask } = /** @type {{ path: string, apiKey: string, fieldMask: string }} */ (
    /** @type {MessageEvent} */ (event).data
  );
  const counts = new FleetCounts();
  let lastPost = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  const postCounts = () => {
    pending = undefined;
    lastPost = Date.now();
    post({ kind: 'counts', summary: counts.summary(), current: counts.current });
  };
  new LiveWatch({
    fetch: (url, init) => fetch(url, init),
    apiKey,
    path,
    reopenBody: () => ({
      type: 'STATELESS',
      fieldMask,
      maxChunkSize: 1000,
      ...(counts.resumeToken ? { resumeToken: counts.resumeToken } : {}),
    }),
    onMessage: (message) => {
      counts.apply(message);
      if (pending !== undefined) return;
      const wait = counts.current ? 0 : Math.max(0, lastPost + SNAPSHOT_POST_INTERVAL_MS - Date.now());
      pending = setTimeout(postCounts, wait);
    },
    onState: (state, error) =>
      post({
        kind: 'state',
        state,
        ...(error ? { error: { status: error.status, code: error.code, message: error.message } } : {}),
      }),
  }).start();
});
