/** The device list: the devices under a parent such as projects/p/regions/-, a page at a time. */
import { parseParent } from '../api/paths.js';
import { osVersionLine, summarizeDevice } from '../api/device-view.js';
import { busy, h, show } from './dom.js';

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 */
export function renderDeviceList(view, ctx, parent) {
  const messages = h('div');
  const input = h('input', { type: 'text', name: 'parent', value: parent, size: 40 });
  const form = h(
    'form',
    { class: 'inline' },
    h('label', {}, 'Parent (projects/{project}/regions/{region or -})', input),
    h('button', { type: 'submit', class: 'primary' }, 'List devices'),
  );
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true }, 'Next page');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const parsed = parseParent(input.value);
    if ('error' in parsed) show(messages, 'error', parsed.error);
    else ctx.navigate({ screen: 'devices', parent: parsed.parent });
  });
  view.replaceChildren(
    h(
      'section',
      { class: 'card' },
      h('h1', {}, 'Devices'),
      form,
      messages,
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Device'), h('th', {}, 'State'), h('th', {}, 'OS version'), h('th', {}, 'OSReady')),
        ),
        body,
      ),
      h('p', {}, more),
    ),
  );

  /** @param {string} [pageToken] */
  const load = async (pageToken) => {
    try {
      const page = await ctx.client.listDevices(parent, pageToken);
      if (page.items.length === 0 && pageToken === undefined) {
        body.replaceChildren(h('tr', {}, h('td', { colspan: 4, class: 'muted' }, `No devices under ${parent}.`)));
      }
      body.append(...page.items.map((device) => deviceRow(ctx, device)));
      more.hidden = page.nextPageToken === '';
      more.onclick = () => void busy(more, () => load(page.nextPageToken));
    } catch (err) {
      show(messages, 'error', err);
    }
  };
  const parsed = parseParent(parent);
  if ('error' in parsed) show(messages, 'error', parsed.error);
  else void load();
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Record<string, unknown> & { name: string }} device
 * @returns {HTMLTableRowElement}
 */
function deviceRow(ctx, device) {
  const summary = summarizeDevice(device);
  const osReady = summary.conditions.find((c) => c.type === 'OSReady');
  const link = h('a', { href: '#' }, summary.name);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    ctx.navigate({ screen: 'device', name: summary.name });
  });
  return h(
    'tr',
    {},
    h('td', {}, link),
    h('td', {}, connectionBadge(summary.connection)),
    h('td', {}, osVersionLine(summary)),
    h('td', {}, osReady ? `${osReady.status}/${osReady.reason}` : ''),
  );
}

/**
 * @param {string} connection
 * @returns {HTMLSpanElement}
 */
export function connectionBadge(connection) {
  const kind = connection === 'Online' ? 'online' : connection === 'Offline' ? 'offline' : '';
  return h('span', { class: `badge ${kind}` }, connection);
}
