/**
 * Device counts kept current without streaming the fleet: the server counts (`GET …/devices:counts`), and a
 * stateless watch opened from the counts' `resumeToken` (so it sends no snapshot) with a field mask of what is
 * counted says when to count again, at most once per interval. No DOM: the calls are passed in.
 */
import { DashboardApiError, isObject } from './errors.js';
import { collectionPath, queryString } from './paths.js';

/**
 * @typedef {object} DeviceCounts
 * @property {number} total
 * @property {{ field: string, values: { value: string | number | boolean | null, count: number }[], more: boolean }[]} byField
 * @property {Record<string, number>} counts
 * @property {string} resumeToken
 */
/**
 * @typedef {object} CountsQuery
 * @property {string} [filter]
 * @property {readonly string[]} [by]
 * @property {Readonly<Record<string, string>>} [counts] named filters
 * @property {number} [maxValues]
 */

/**
 * The path of a counts request.
 * @param {string} parent
 * @param {CountsQuery} query
 * @returns {string}
 */
export function countsPath(parent, query) {
  /** @type {Record<string, import('./paths.js').QueryParam>} */
  const params = { filter: query.filter, by: query.by, maxValues: query.maxValues };
  for (const [name, filter] of Object.entries(query.counts ?? {})) params[`count.${name}`] = filter;
  return `${collectionPath(parent, 'devices')}:counts${queryString(params)}`;
}

/**
 * A counts answer, checked.
 * @param {Record<string, unknown>} answer
 * @returns {DeviceCounts}
 */
export function deviceCounts(answer) {
  const byField = Array.isArray(answer['byField']) ? answer['byField'] : [];
  return {
    total: typeof answer['total'] === 'number' ? answer['total'] : 0,
    byField: byField.filter(isObject).map((f) => ({
      field: String(f['field']),
      values: (Array.isArray(f['values']) ? f['values'] : []).filter(isObject).map((v) => ({
        value: /** @type {string | number | boolean | null} */ (v['value'] ?? null),
        count: Number(v['count']),
      })),
      more: f['more'] === true,
    })),
    counts: isObject(answer['counts'])
      ? Object.fromEntries(Object.entries(answer['counts']).map(([k, v]) => [k, Number(v)]))
      : {},
    resumeToken: typeof answer['resumeToken'] === 'string' ? answer['resumeToken'] : '',
  };
}

/**
 * The values of one `by` field, most common first ('' for devices without the field).
 * @param {DeviceCounts} counts
 * @param {string} field
 * @returns {[string, number][]}
 */
export function valueCounts(counts, field) {
  const found = counts.byField.find((f) => f.field === field);
  return (found?.values ?? [])
    .map((v) => /** @type {[string, number]} */ ([v.value === null ? '' : String(v.value), v.count]))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * @typedef {object} FollowOptions
 * @property {() => Promise<{ resumeToken: string }>} read counts (of one or several requests) with the change-log
 *   position read before them
 * @property {string} watchPath the devices' `:watch` path
 * @property {string} [filter] of the watch (what the counts cover)
 * @property {string} fieldMask the counted fields: changes touching nothing else are not sent
 * @property {(path: string, options: { reopenBody: () => Record<string, unknown>, onMessage: (message: Record<string, unknown>) => void }) => { stop(): void }} openWatch
 * @property {(error: unknown) => void} onError a read failed (the next change reads again)
 * @property {number} [intervalMs] between two reads at least (default 1000); and at least ten times as long as
 *   the last read took, so that following a large, busy fleet costs its server a tenth of its time at most
 */

/** after a read failed before the watch could open */
const RETRY_MS = 5000;

/**
 * Reads, then reads again after changes, until stop().
 * @param {FollowOptions} options
 * @returns {{ stop(): void, refresh(): void }}
 */
export function followCounts(options) {
  const interval = options.intervalMs ?? 1000;
  let stopped = false;
  let reading = false;
  let again = false;
  let lastRead = 0;
  let lastTook = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {{ stop(): void } | undefined} */
  let watch;
  let watchToken = '';

  const openWatch = () => {
    watch = options.openWatch(options.watchPath, {
      reopenBody: () => ({
        type: 'STATELESS',
        fieldMask: options.fieldMask,
        maxChunkSize: 1000,
        ...(options.filter ? { filter: options.filter } : {}),
        resumeToken: watchToken,
      }),
      onMessage: (message) => {
        if (typeof message['resumeToken'] === 'string' && message['resumeToken'] !== '') {
          watchToken = message['resumeToken'];
        }
        if (message['isHardReset'] === true) {
          // the log no longer covers the token: a snapshot would follow; count afresh and resume from there
          watch?.stop();
          watch = undefined;
          void read(true);
          return;
        }
        const changes = Object.entries(message).find(([key]) => key.endsWith('Changes'))?.[1];
        if (Array.isArray(changes) && changes.length > 0) schedule();
      },
    });
  };

  /** @param {boolean} reopen */
  const read = async (reopen) => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    lastRead = Date.now();
    try {
      const { resumeToken } = await options.read();
      lastTook = Date.now() - lastRead;
      if (stopped) return;
      if (reopen || watch === undefined) {
        watchToken = resumeToken;
        openWatch();
      }
    } catch (err) {
      if (stopped) return;
      options.onError(err);
      // nothing follows the changes yet: try again unless the server refused the request itself
      if (watch === undefined && !(err instanceof DashboardApiError && err.code >= 400 && err.code < 500)) again = true;
    } finally {
      reading = false;
      if (again && !stopped) {
        again = false;
        schedule();
      }
    }
  };

  const schedule = () => {
    if (timer !== undefined || stopped) return;
    const gap = watch === undefined ? RETRY_MS : Math.max(interval, 10 * lastTook);
    const wait = Math.max(0, lastRead + gap - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      void read(false);
    }, wait);
  };

  void read(true);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      watch?.stop();
    },
    refresh: schedule,
  };
}
