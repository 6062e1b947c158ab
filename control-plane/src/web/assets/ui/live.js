/**
 * The screen's watch streams and the "Live" / "Reconnecting…" indicator of the top bar: every stream a screen
 * opens is registered here, shown in the indicator while it reconnects, and closed when the screen is left.
 */
import { LiveWatch } from '../api/watch.js';

export class LiveStreams {
  /**
   * @param {HTMLElement | null} indicator
   * @param {string} apiKey
   */
  constructor(indicator, apiKey) {
    /** @private */
    this.indicator = indicator;
    /** @private */
    this.apiKey = apiKey;
    /** @private @type {Set<{ state: import('../api/watch.js').StreamState, stop(): void }>} */
    this.streams = new Set();
    /** @private @type {(() => void)[]} */
    this.cleanups = [];
  }

  /**
   * Runs `action` every `ms` while the screen is shown (e.g. to age relative times).
   * @param {() => void} action
   * @param {number} ms
   */
  every(action, ms) {
    const timer = setInterval(action, ms);
    this.cleanups.push(() => clearInterval(timer));
  }

  /**
   * Opens a watch stream for the current screen.
   * @param {string} path
   * @param {Omit<import('../api/watch.js').WatchOptions, 'fetch' | 'apiKey' | 'path'>} options
   * @returns {LiveWatch}
   */
  open(path, options) {
    const stream = new LiveWatch({
      ...options,
      path,
      apiKey: this.apiKey,
      fetch: (url, init) => fetch(url, init),
      onState: (state, error) => {
        options.onState?.(state, error);
        this.show();
      },
    });
    this.streams.add(stream);
    this.show();
    return stream.start();
  }

  /**
   * Follows a stream run elsewhere (a worker's): its state is shown with the others, it is stopped with them.
   * @param {{ state: import('../api/watch.js').StreamState, stop(): void }} stream
   * @returns {() => void} call when its state changed
   */
  track(stream) {
    this.streams.add(stream);
    this.show();
    return () => this.show();
  }

  /** Closes every stream (the screen was left). */
  closeAll() {
    for (const stream of this.streams) stream.stop();
    this.streams.clear();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.show();
  }

  /** @private */
  show() {
    if (!this.indicator) return;
    const states = [...this.streams].map((s) => s.state);
    const reconnecting = states.some((s) => s === 'reconnecting');
    const connecting = states.some((s) => s === 'connecting');
    this.indicator.hidden = states.length === 0;
    this.indicator.className = `live-state ${reconnecting ? 'reconnecting' : connecting ? 'connecting' : 'live'}`;
    this.indicator.textContent = reconnecting ? 'Reconnecting…' : connecting ? 'Connecting…' : 'Live';
  }
}
