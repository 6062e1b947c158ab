/**
 * The fleet at a glance for a parent: Online/Offline, running OS versions, OSReady reasons and the devices with a
 * failing health check, kept from a stateless watch of the devices (resumed from its token after a reconnection).
 * Each count opens the device list filtered to it.
 */
import { FLEET_FIELD_MASK, FleetCounts } from '../api/live-collections.js';
import { collectionPath } from '../api/paths.js';
import { quote } from '../api/client.js';
import { h, show } from './dom.js';

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 */
export function renderFleetOverview(card, ctx, parent) {
  const counts = new FleetCounts();
  const messages = h('div');
  const body = h('div', { class: 'overview' }, h('p', { class: 'muted' }, 'Counting devices…'));
  card.replaceChildren(h('h2', {}, 'Fleet'), messages, body);
  /** @param {string} filter */
  const filtered = (filter) => ctx.navigate({ screen: 'devices', parent, filter });
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
          filtered(filter);
        },
      },
      h('strong', {}, count),
      ` ${label}`,
    );
  let scheduled = false;
  const draw = () => {
    scheduled = false;
    const s = counts.summary();
    const failing = h(
      'details',
      { class: 'failing' },
      h('summary', {}, h('strong', {}, s.failing.length), ' with a failing health check'),
      h(
        'ul',
        {},
        s.failing.slice(0, 100).map((name) =>
          h(
            'li',
            {},
            h(
              'a',
              {
                href: '#',
                onclick: (event) => {
                  event.preventDefault();
                  ctx.navigate({ screen: 'device', name });
                },
              },
              name,
            ),
          ),
        ),
        s.failing.length > 100 ? h('li', { class: 'muted' }, `and ${s.failing.length - 100} more`) : undefined,
      ),
    );
    body.replaceChildren(
      h(
        'div',
        { class: 'count-group' },
        h('h3', {}, `Connection (${s.total}${counts.current ? '' : '…'})`),
        countLink('Online', s.online, 'status.connectionStatus = "Online"'),
        countLink('Offline', s.offline, 'status.connectionStatus = "Offline"'),
        failing,
      ),
      h(
        'div',
        { class: 'count-group' },
        h('h3', {}, 'Running OS version'),
        s.byOsVersion
          .slice(0, 8)
          .map(([version, n]) =>
            countLink(
              version || 'not reported',
              n,
              version ? `status.deviceInfo.osVersion = ${quote(version)}` : 'status.deviceInfo.osVersion IS NULL',
            ),
          ),
      ),
      h(
        'div',
        { class: 'count-group' },
        h('h3', {}, 'OSReady reason'),
        s.byOsReadyReason
          .slice(0, 8)
          .map(([reason, n]) =>
            countLink(
              reason || 'none',
              n,
              reason ? `status.osReadyReason = ${quote(reason)}` : 'status.osReadyReason IS NULL',
            ),
          ),
      ),
    );
  };
  ctx.live.open(`${collectionPath(parent, 'devices')}:watch`, {
    reopenBody: () => ({
      type: 'STATELESS',
      fieldMask: FLEET_FIELD_MASK,
      maxChunkSize: 1000,
      ...(counts.resumeToken ? { resumeToken: counts.resumeToken } : {}),
    }),
    onMessage: (message) => {
      counts.apply(message);
      if (!scheduled) {
        scheduled = true;
        setTimeout(draw, 150);
      }
    },
    onState: (state, error) => {
      if (state === 'failed') show(messages, 'error', error);
      else messages.replaceChildren();
    },
  });
}
