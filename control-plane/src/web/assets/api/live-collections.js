/**
 * What the watch streams' messages do to what a screen shows, with no DOM: the rows of a stateful page (`added`
 * at a view index, `modified` moved from its previous index, `removed`) and a single watched resource.
 */
import { isObject } from './errors.js';

/** @typedef {Record<string, unknown> & { name: string }} Resource */

/**
 * The resource a change carries under its singular key (`device`, `rollout`, …).
 * @param {unknown} change
 * @param {string} singular
 * @returns {Resource | undefined}
 */
function resourceIn(change, singular) {
  const resource = isObject(change) ? change[singular] : undefined;
  return isObject(resource) && typeof resource['name'] === 'string' ? /** @type {Resource} */ (resource) : undefined;
}

/**
 * A stateful page: its rows in the server's order and its page tokens.
 */
export class StatefulPage {
  /** @param {string} singular e.g. device (the response's list is `deviceChanges`) */
  constructor(singular) {
    /** @private */
    this.key = `${singular}Changes`;
    /** @private */
    this.singular = singular;
    /** @type {Resource[]} */
    this.rows = [];
    this.nextPageToken = '';
    this.prevPageToken = '';
    /** whether the first answer of the stream arrived */
    this.loaded = false;
  }

  /** A new stream: the server sends the page again. */
  reset() {
    this.rows = [];
    this.loaded = false;
  }

  /**
   * @param {Record<string, unknown>} response one watch response
   */
  apply(response) {
    const changes = response[this.key];
    for (const change of Array.isArray(changes) ? changes : []) {
      if (!isObject(change)) continue;
      const added = change['added'];
      const modified = change['modified'];
      const removed = change['removed'];
      if (isObject(added)) {
        const resource = resourceIn(added, this.singular);
        if (resource) this.insert(resource, added['viewIndex']);
      } else if (isObject(modified)) {
        const resource = resourceIn(modified, this.singular);
        if (!resource) continue;
        this.rows = this.rows.filter((r) => r.name !== resource.name);
        this.insert(resource, modified['viewIndex']);
      } else if (isObject(removed)) {
        const name = removed['name'];
        this.rows = this.rows.filter((r) => r.name !== name);
      }
    }
    const tokens = response['pageTokenChange'];
    if (isObject(tokens)) {
      this.nextPageToken = typeof tokens['nextPageToken'] === 'string' ? tokens['nextPageToken'] : '';
      this.prevPageToken = typeof tokens['prevPageToken'] === 'string' ? tokens['prevPageToken'] : '';
    }
    if (response['isCurrent'] === true) this.loaded = true;
  }

  /**
   * @private
   * @param {Resource} resource
   * @param {unknown} index
   */
  insert(resource, index) {
    const at = typeof index === 'number' ? Math.min(Math.max(index, 0), this.rows.length) : this.rows.length;
    this.rows.splice(at, 0, resource);
  }
}

/**
 * The resource of a single watch message (`{change: {current|modified: {<singular>: …}}}`), undefined for a
 * removal or anything else.
 * @param {Record<string, unknown>} message
 * @param {string} singular
 * @returns {Resource | undefined | null} null when it was removed
 */
export function singleWatchResource(message, singular) {
  const change = message['change'];
  if (!isObject(change)) return undefined;
  if (isObject(change['removed'])) return null;
  return resourceIn(change['current'], singular) ?? resourceIn(change['modified'], singular);
}

/**
 * "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago" ('' for no or a malformed time).
 * @param {string} time RFC 3339
 * @param {number} now milliseconds
 * @returns {string}
 */
export function relativeTime(time, now) {
  const at = Date.parse(time);
  if (time === '' || Number.isNaN(at)) return '';
  const seconds = Math.round((now - at) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/**
 * A readable local time, e.g. "27 Nov 2026, 22:40:15" ('' for no or a malformed time).
 * @param {string} time RFC 3339
 * @returns {string}
 */
export function readableTime(time) {
  const at = Date.parse(time);
  if (time === '' || Number.isNaN(at)) return '';
  return new Date(at).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

/**
 * Where in the filter an API error points ("… at position 21", 1-based), or -1.
 * @param {string} message
 * @returns {number} 0-based index
 */
export function filterErrorPosition(message) {
  const found = /at position (\d+)/.exec(message);
  return found ? Number(found[1]) - 1 : -1;
}
