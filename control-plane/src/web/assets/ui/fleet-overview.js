/**
 * The fleet at a glance for a parent: Online/Offline, running OS versions, OSReady reasons and the devices with a
 * failing health check, kept from a stateless watch of the devices (resumed from its token after a reconnection)
 * which a worker holds (`count-worker.js`), so that counting 100,000 devices leaves the page responsive. Each count
 * opens the device list filtered to it.
 */
import { FLEET_FIELD_MASK } from '../api/live-collections.js';
import { DashboardApiError } from '../api/errors.js';
import { collectionPath } from '../api/paths.js';
import { quote } from '../api/client.js';
import { h, show } from './dom.js';

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 */
export function renderFleetOverview(card, ctx, parent) {
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
  /**
   * @param {import('../count-worker.js').CountMessage & { kind: 'counts' }} counted
   */
  const draw = ({ summary: s, current }) => {
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
        h('h3', {}, `Connection (${s.total}${current ? '' : '…'})`),
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
  const worker = new Worker('/dashboard/count-worker.js', { type: 'module' });
  /** @type {{ state: import('../api/watch.js').StreamState, stop(): void }} */
  const stream = { state: 'connecting', stop: () => worker.terminate() };
  const stateChanged = ctx.live.track(stream);
  worker.addEventListener('message', (event) => {
    const message = /** @type {import('../count-worker.js').CountMessage} */ (event.data);
    if (message.kind === 'counts') {
      draw(message);
      return;
    }
    stream.state = message.state;
    stateChanged();
    if (message.error) {
      const { status, code, message: text } = message.error;
      show(messages, 'error', new DashboardApiError(status, code, text));
    } else messages.replaceChildren();
  });
  worker.postMessage({
    path: `${collectionPath(parent, 'devices')}:watch`,
    apiKey: ctx.apiKey,
    fieldMask: FLEET_FIELD_MASK,
  });
}
