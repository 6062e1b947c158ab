/**
 * The fleet at a glance for a parent: Online/Offline, running OS versions, OSReady reasons and the devices with a
 * failing health check, counted by the server (`devices:counts`, no device downloaded) and counted again when a
 * stateless watch of the counted fields, resumed from the counts' position, reports a change. Each count opens
 * the device list filtered to it.
 */
import { quote } from '../api/client.js';
import { countsPath, deviceCounts, followCounts, valueCounts } from '../api/live-counts.js';
import { collectionPath } from '../api/paths.js';
import { h, show } from './dom.js';

const CONNECTION = 'status.connectionStatus';
const OS_VERSION = 'status.deviceInfo.osVersion';
const OS_READY_REASON = 'status.osReadyReason';
const FAILING_COUNT = 'status.failingHealthCheckCount';
const FAILING = `${FAILING_COUNT} > 0`;
const ONLINE = 'status.connectionStatus = "Online"';
/** what the counts depend on: a change of any other field is not sent */
const COUNTED_FIELDS = `${CONNECTION},${OS_VERSION},${OS_READY_REASON},${FAILING_COUNT}`;
/** values shown per group (the rest are in the list, by filter) */
const SHOWN_VALUES = 8;

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 */
export function renderFleetOverview(card, ctx, parent) {
  const messages = h('div');
  const body = h('div', { class: 'overview' }, h('p', { class: 'muted' }, 'Counting devices…'));
  card.replaceChildren(h('h2', {}, 'Fleet'), messages, body);
  /**
   * @param {string} label
   * @param {number} count
   * @param {string} filter
   */
  const countLink = (label, count, filter) =>
    h(
      'a',
      {
        href: '#',
        class: 'count',
        onclick: (event) => {
          event.preventDefault();
          ctx.navigate({ screen: 'devices', parent, filter });
        },
      },
      h('strong', {}, count),
      ` ${label}`,
    );
  /**
   * @param {string} title
   * @param {[string, number][]} values
   * @param {string} path
   * @param {string} absent what a device without the field is called
   */
  const group = (title, values, path, absent) =>
    h(
      'div',
      { class: 'count-group' },
      h('h3', {}, title),
      values
        .slice(0, SHOWN_VALUES)
        .map(([value, n]) => countLink(value || absent, n, value ? `${path} = ${quote(value)}` : `${path} IS NULL`)),
      values.length > SHOWN_VALUES ? h('span', { class: 'muted' }, `and ${values.length - SHOWN_VALUES} more`) : '',
    );
  /** @param {import('../api/live-counts.js').DeviceCounts} counts */
  const draw = (counts) => {
    const online = counts.counts['online'] ?? 0;
    body.replaceChildren(
      h(
        'div',
        { class: 'count-group' },
        h('h3', {}, `Connection (${counts.total})`),
        countLink('Online', online, ONLINE),
        countLink('Offline', counts.total - online, 'status.connectionStatus != "Online"'),
        countLink('with a failing health check', failingDevices(counts), FAILING),
      ),
      group('Running OS version', valueCounts(counts, OS_VERSION), OS_VERSION, 'not reported'),
      group('OSReady reason', valueCounts(counts, OS_READY_REASON), OS_READY_REASON, 'none'),
    );
  };
  // the failing devices are tallied by their count of failing checks: the store counts a value of its index
  // faster than it tests a range over the parent's rows
  const path = countsPath(parent, { by: [OS_VERSION, OS_READY_REASON, FAILING_COUNT], counts: { online: ONLINE } });
  const follower = followCounts({
    read: async () => {
      const counts = deviceCounts(await ctx.client.request('GET', path));
      messages.replaceChildren();
      draw(counts);
      return counts;
    },
    watchPath: `${collectionPath(parent, 'devices')}:watch`,
    fieldMask: COUNTED_FIELDS,
    openWatch: (watchPath, options) => ctx.live.open(watchPath, options),
    onError: (err) => show(messages, 'error', err),
  });
  ctx.live.track({ state: 'live', stop: () => follower.stop() });
}

/**
 * @param {import('../api/live-counts.js').DeviceCounts} counts
 * @returns {number} the devices with at least one failing health check
 */
function failingDevices(counts) {
  const tally = counts.byField.find((f) => f.field === FAILING_COUNT)?.values ?? [];
  return tally.reduce((sum, { value, count }) => (typeof value === 'number' && value > 0 ? sum + count : sum), 0);
}
