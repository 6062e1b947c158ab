/**
 * Watch streams of the REST API (`POST …:watch`, NDJSON answers) kept open: a stream that ends or fails is opened
 * again after a growing delay (1 s to 10 s), with the body `reopenBody` gives for it, so a stateless watcher
 * resumes from its last resume token. No DOM: the fetch function is passed in.
 */
import { DashboardApiError, parseApiError } from './errors.js';
import { authHeaders } from './client.js';

/**
 * @typedef {(url: string, init: { method: string, headers: Record<string, string>, body: string, signal: AbortSignal }) => Promise<{ ok: boolean, status: number, text: () => Promise<string>, body: ReadableStream<Uint8Array> | null }>} StreamFetch
 */
/** @typedef {'connecting' | 'live' | 'reconnecting' | 'failed'} StreamState */
/**
 * @typedef {object} WatchOptions
 * @property {StreamFetch} fetch
 * @property {string} apiKey
 * @property {string} path the :watch path, e.g. /v1/projects/p/regions/-/devices:watch
 * @property {() => Record<string, unknown>} reopenBody the request body, asked again before every (re)connection
 * @property {() => void} [onOpen] a (re)connection was answered 200: what follows starts afresh (a stateful page
 *   or a single resource is sent again) unless the body resumed from a token
 * @property {(message: Record<string, unknown>) => void} onMessage each NDJSON line, parsed
 * @property {(state: StreamState, error?: DashboardApiError) => void} [onState]
 * @property {readonly number[]} [retryDelaysMs]
 */

const RETRY_DELAYS_MS = [1000, 2000, 4000, 10_000];
/** answers worth trying again: too many streams, the server restarting */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Splits a byte stream into its lines, decoded.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<string>}
 */
export async function* lines(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let end;
      while ((end = pending.indexOf('\n')) >= 0) {
        yield pending.slice(0, end);
        pending = pending.slice(end + 1);
      }
    }
    pending += decoder.decode();
    if (pending !== '') yield pending;
  } finally {
    reader.releaseLock();
  }
}

export class LiveWatch {
  /** @param {WatchOptions} options */
  constructor(options) {
    /** @private */
    this.options = options;
    /** @private */
    this.abort = new AbortController();
    /** @private */
    this.failures = 0;
    /** @type {StreamState} */
    this.state = 'connecting';
  }

  /** Opens the stream and keeps it open until stop(). */
  start() {
    void this.run();
    return this;
  }

  stop() {
    this.abort.abort();
  }

  /**
   * @private
   * @param {StreamState} state
   * @param {DashboardApiError} [error]
   */
  setState(state, error) {
    this.state = state;
    this.options.onState?.(state, error);
  }

  /** @private */
  async run() {
    const { signal } = this.abort;
    const delays = this.options.retryDelaysMs ?? RETRY_DELAYS_MS;
    while (!signal.aborted) {
      try {
        await this.once(signal);
        this.failures = 0; // a stream that was answered and then ended (server restart): reconnect at once
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof DashboardApiError && !RETRYABLE.has(err.code)) {
          this.setState('failed', err);
          return;
        }
        this.failures++;
      }
      if (signal.aborted) return;
      this.setState('reconnecting');
      const delay = delays[Math.min(this.failures, delays.length - 1)] ?? 1000;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, this.failures === 0 ? Math.min(delay, 250) : delay);
        signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        signal.addEventListener('abort', resolve, { once: true });
      });
    }
  }

  /**
   * @private
   * @param {AbortSignal} signal
   */
  async once(signal) {
    const { fetch: send, apiKey, path } = this.options;
    const answer = await send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', ...authHeaders(apiKey) },
      body: JSON.stringify(this.options.reopenBody()),
      signal,
    });
    if (!answer.ok || answer.body === null) throw parseApiError(answer.status, await answer.text());
    performance.mark(`outpost:watch-answered ${path}`);
    this.options.onOpen?.();
    this.setState('live');
    for await (const line of lines(answer.body)) {
      if (line.trim() === '') continue;
      /** @type {unknown} */
      const message = JSON.parse(line);
      if (typeof message === 'object' && message !== null && !Array.isArray(message)) {
        // a stream ended by the server (e.g. the key lost its permission) says why in its last line
        if ('error' in message) throw parseApiError(errorCode(message), line);
        performance.mark(`outpost:watch-message ${path}`);
        this.options.onMessage(/** @type {Record<string, unknown>} */ (message));
      }
    }
  }
}

/**
 * @param {object} message
 * @returns {number} the HTTP code an error line names (500 when it names none)
 */
function errorCode(message) {
  const error = 'error' in message ? message.error : undefined;
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'number' ? code : 500;
}
