/**
 * Every rollout under a parent, whoever started it (this page, the command line, a script): for each OS version
 * some device is asked for (`spec.osVersion`), how far it went in each wave and in all, with the counts of
 * `outpost devices rollout-status` (the same filters, from the command line's rollout module: not targeted, in
 * flight, done, failed, offline, pending), counted by the server (`devices:counts`), and the failed devices with
 * why. Counted again, at most once a second, when a device's version, labels, OSReady or connection changes.
 */
import { STATUS_COUNTS, statusFilters } from '../../../../../shared/dist/rollout/status-filters.js';
import { waveFilter } from '../../../../../shared/dist/rollout/wave-labels.js';
import { compareVersions, field } from '../api/device-view.js';
import { countsPath, deviceCounts, followCounts } from '../api/live-counts.js';
import { collectionPath } from '../api/paths.js';
import { h, show, table } from './dom.js';

/** the newest versions shown */
const SHOWN_VERSIONS = 6;
/** waves with a row of their own (each takes six of the 32 named counts a counts request may hold) */
const MAX_WAVES = 4;
const FAILED_SHOWN = 20;
const COUNT_HEADERS = ['Not targeted', 'In flight', 'Done', 'Failed', 'Offline', 'Pending'];
const FOLLOWED_FIELDS =
  'spec.osVersion,status.deviceInfo.osVersion,status.osReadyReason,status.connectionStatus,metadata.labels';

/**
 * @typedef {object} VersionProgress
 * @property {string} version
 * @property {{ scope: string, counts: number[] }[]} rows one per wave, then "all"
 * @property {{ name: string, why: string }[]} failed
 */

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 * @param {readonly string[]} waves
 * @returns {() => void} stops following
 */
export function followRollouts(card, ctx, parent, waves) {
  const messages = h('div');
  const body = h('div', {}, h('p', { class: 'muted' }, 'Counting…'));
  card.replaceChildren(h('h2', {}, `Rollouts under ${parent}`), messages, body);
  const scopes = [...waves.slice(0, MAX_WAVES).map((wave) => ({ name: wave, filter: waveFilter(wave) })), ALL];
  /** @param {string} version */
  const progressOf = async (version) => {
    const filters = statusFilters(version);
    /** @type {Record<string, string>} */
    const named = {};
    scopes.forEach((scope, i) => {
      for (const count of STATUS_COUNTS) named[`s${i}${count}`] = within(scope.filter, filters[count]);
    });
    const [answer, failed] = await Promise.all([
      ctx.client.request('GET', countsPath(parent, { counts: named })),
      ctx.client.list(parent, 'devices', {
        filter: filters.failed,
        pageSize: FAILED_SHOWN,
        fieldMask: 'status.conditions',
        view: 'NAME',
      }),
    ]);
    const counts = deviceCounts(answer).counts;
    return {
      version,
      rows: scopes.map((scope, i) => ({
        scope: scope.name,
        counts: STATUS_COUNTS.map((count) => counts[`s${i}${count}`] ?? 0),
      })),
      failed: failed.items.map((d) => ({ name: d.name, why: osReadyMessage(d) })),
    };
  };
  const follower = followCounts({
    read: async () => {
      const versions = deviceCounts(
        await ctx.client.request('GET', countsPath(parent, { by: ['spec.osVersion'], maxValues: 1000 })),
      );
      const asked = (versions.byField[0]?.values ?? [])
        .flatMap((v) => (v.value === null ? [] : [String(v.value)]))
        .sort((a, b) => compareVersions(b, a))
        .slice(0, SHOWN_VERSIONS);
      const progress = await Promise.all(asked.map(progressOf));
      messages.replaceChildren();
      body.replaceChildren(...(progress.length === 0 ? [h('p', { class: 'muted' }, NONE)] : progress.map(drawVersion)));
      return versions;
    },
    watchPath: `${collectionPath(parent, 'devices')}:watch`,
    fieldMask: FOLLOWED_FIELDS,
    openWatch: (path, options) => ctx.live.open(path, options),
    onError: (err) => show(messages, 'error', err),
  });
  return () => follower.stop();
}

const ALL = { name: 'all', filter: '' };
const NONE = 'No device is asked for an OS version (spec.osVersion) here.';

/**
 * @param {string} scope
 * @param {string} filter
 * @returns {string}
 */
const within = (scope, filter) => (scope === '' ? filter : `(${scope}) AND (${filter})`);

/**
 * @param {VersionProgress} progress
 * @returns {HTMLElement}
 */
function drawVersion(progress) {
  return h(
    'div',
    { class: 'rollout-version', 'data-version': progress.version },
    h('h3', {}, progress.version),
    table(
      ['Wave', ...COUNT_HEADERS],
      progress.rows.map((row) => [row.scope, ...row.counts.map(String)]),
    ),
    progress.failed.length === 0
      ? ''
      : table(
          ['Failed device', 'Why'],
          progress.failed.map((f) => [f.name, f.why]),
        ),
  );
}

/**
 * @param {Record<string, unknown>} device
 * @returns {string} its OSReady condition's reason and message
 */
function osReadyMessage(device) {
  const conditions = field(device, 'status.conditions');
  const osReady = Array.isArray(conditions) ? conditions.find((c) => field(c, 'type') === 'OSReady') : undefined;
  return [field(osReady, 'reason'), field(osReady, 'message')].filter((t) => typeof t === 'string' && t).join(': ');
}
