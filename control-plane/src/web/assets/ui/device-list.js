/**
 * The devices screen: the fleet overview of a parent and its device list, a page at a time, both live. The list
 * is a stateful watch of the visible page (filter in the API's filter language, sort by a column, previous and
 * next page); a filter the API refuses is shown with a caret under the position it names.
 */
import { parseParent, collectionPath } from '../api/paths.js';
import { osVersionLine, summarizeDevice, field } from '../api/device-view.js';
import { StatefulPage, filterErrorPosition, relativeTime } from '../api/live-collections.js';
import { quote } from '../api/client.js';
import { h, show } from './dom.js';
import { renderFleetOverview } from './fleet-overview.js';

const PAGE_SIZE = 50;
const LIST_FIELD_MASK = [
  'metadata.labels',
  'spec.osVersion',
  'status.deviceInfo.osVersion',
  'status.connectionStatus',
  'status.connectionStatusChangeTime',
  'status.osReadyReason',
].join(',');
/** the sortable columns: header, orderBy field */
const COLUMNS = /** @type {const} */ ([
  ['Device', 'name'],
  ['State', 'status.connectionStatus'],
  ['OS version (desired / running)', 'spec.osVersion'],
  ['OSReady', 'status.osReadyReason'],
  ['Last seen', 'status.connectionStatusChangeTime'],
]);

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {{ parent: string, filter?: string, orderBy?: string }} route
 */
export function renderDeviceList(view, ctx, route) {
  const { parent } = route;
  const filter = route.filter ?? '';
  const orderBy = route.orderBy ?? '';
  const messages = h('div');
  const parentInput = h('input', { type: 'text', name: 'parent', value: parent, size: 30 });
  const filterInput = h('input', {
    type: 'text',
    name: 'filter',
    value: filter,
    size: 50,
    spellcheck: 'false',
    placeholder: 'status.connectionStatus = Offline AND metadata.labels CONTAINS "role:gateway"',
  });
  const filterError = h('div', { class: 'filter-error', role: 'alert', hidden: true });
  const form = h(
    'form',
    { class: 'inline list-form' },
    h('label', {}, 'Parent', parentInput),
    h('label', { class: 'grow' }, 'Filter', filterInput),
    h('button', { type: 'submit', class: 'primary' }, 'Apply'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const parsed = parseParent(parentInput.value);
    if ('error' in parsed) show(messages, 'error', parsed.error);
    else ctx.navigate({ screen: 'devices', parent: parsed.parent, filter: filterInput.value.trim(), orderBy });
  });
  const overview = h('section', { class: 'card' });
  const body = h('tbody');
  const pageInfo = h('span', { class: 'muted' });
  const previous = h('button', { type: 'button', disabled: true }, '← Previous page');
  const next = h('button', { type: 'button', disabled: true }, 'Next page →');
  const header = h(
    'tr',
    {},
    COLUMNS.map(([label, key]) => {
      const sorted = orderBy.replace(/ desc$/, '') === key || (orderBy === '' && key === 'name');
      const descending = sorted && orderBy.endsWith(' desc');
      const nextOrder = sorted && !descending ? `${key} desc` : key;
      return h(
        'th',
        { 'aria-sort': sorted ? (descending ? 'descending' : 'ascending') : undefined },
        h(
          'button',
          {
            type: 'button',
            class: 'sort',
            onclick: () =>
              ctx.navigate({ screen: 'devices', parent, filter, orderBy: nextOrder === 'name' ? '' : nextOrder }),
          },
          label,
          sorted ? (descending ? ' ▼' : ' ▲') : '',
        ),
      );
    }),
  );
  view.replaceChildren(
    overview,
    h(
      'section',
      { class: 'card' },
      h('h1', {}, 'Devices'),
      form,
      filterError,
      messages,
      h(
        'div',
        { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Devices' },
        h('table', { class: 'devices' }, h('thead', {}, header), body),
      ),
      h('div', { class: 'row pager' }, previous, pageInfo, next),
    ),
  );
  const parsed = parseParent(parent);
  if ('error' in parsed) {
    show(messages, 'error', parsed.error);
    return;
  }
  overview.replaceChildren(h('h2', {}, 'Fleet'), h('p', { class: 'muted' }, 'Counting devices…'));
  // the counts start once the visible page is shown: the server counts every device of the parent, which the
  // first rows should not wait for
  let counting = false;
  const startCounting = () => {
    if (counting) return;
    counting = true;
    renderFleetOverview(overview, ctx, parent);
  };

  const page = new StatefulPage('device');
  let pageToken = '';
  let pageNumber = 1;
  let marked = false;
  /** @param {string} label */
  const addLabelFilter = (label) => {
    const clause = `metadata.labels CONTAINS ${quote(label)}`;
    ctx.navigate({ screen: 'devices', parent, filter: filter ? `${filter} AND ${clause}` : clause, orderBy });
  };
  const draw = () => {
    const now = Date.now();
    if (page.loaded && page.rows.length === 0) {
      body.replaceChildren(
        h(
          'tr',
          {},
          h('td', { colspan: 5, class: 'muted' }, `No devices under ${parent}${filter ? ' match the filter' : ''}.`),
        ),
      );
    } else body.replaceChildren(...page.rows.map((device) => deviceRow(ctx, device, now, addLabelFilter)));
    if (page.loaded && !marked) {
      marked = true;
      performance.mark('outpost:first-rows'); // what scripts/bench/dashboard.ts reports
    }
    previous.disabled = pageNumber === 1;
    next.disabled = page.nextPageToken === '';
    pageInfo.textContent = page.loaded ? `page ${pageNumber}` : 'loading…';
  };
  /** @type {import('../api/watch.js').LiveWatch | undefined} */
  let stream;
  /** @type {string[]} the tokens of the pages before this one */
  const history = [];
  const open = () => {
    stream?.stop();
    page.reset();
    draw();
    stream = ctx.live.open(`${collectionPath(parent, 'devices')}:watch`, {
      reopenBody: () => ({
        type: 'STATEFUL',
        pageSize: PAGE_SIZE,
        fieldMask: LIST_FIELD_MASK,
        ...(filter ? { filter } : {}),
        ...(orderBy ? { orderBy } : {}),
        ...(pageToken ? { pageToken } : {}),
      }),
      onOpen: () => page.reset(),
      onMessage: (message) => {
        page.apply(message);
        draw();
        if (page.loaded) startCounting();
      },
      onState: (state, error) => {
        if (state !== 'failed') return;
        startCounting();
        const position = filterErrorPosition(error?.message ?? '');
        if (filter && position >= 0) {
          filterError.hidden = false;
          filterError.replaceChildren(
            h('p', {}, error?.describe() ?? ''),
            h('pre', { class: 'caret' }, `${filter}\n${' '.repeat(position)}^`),
          );
          filterInput.setAttribute('aria-invalid', 'true');
        } else show(messages, 'error', error);
      },
    });
  };
  next.addEventListener('click', () => {
    history.push(pageToken);
    pageToken = page.nextPageToken;
    pageNumber++;
    open();
  });
  previous.addEventListener('click', () => {
    pageToken = history.pop() ?? '';
    pageNumber = Math.max(1, pageNumber - 1);
    open();
  });
  ctx.live.every(draw, 10_000); // the relative times age
  open();
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Record<string, unknown> & { name: string }} device
 * @param {number} now
 * @param {(label: string) => void} addLabelFilter
 * @returns {HTMLTableRowElement}
 */
function deviceRow(ctx, device, now, addLabelFilter) {
  const summary = summarizeDevice(device);
  const link = h('a', { href: '#' }, summary.name);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    ctx.navigate({ screen: 'device', name: summary.name });
  });
  const labels = field(device, 'metadata.labels');
  const chips = Object.entries(typeof labels === 'object' && labels !== null ? labels : {}).map(([k, v]) =>
    h(
      'button',
      { type: 'button', class: 'chip', title: `show only devices labelled ${k}=${String(v)}` },
      `${k}=${String(v)}`,
    ),
  );
  chips.forEach((chip) =>
    chip.addEventListener('click', () => addLabelFilter(chip.textContent?.replace('=', ':') ?? '')),
  );
  const reason = field(device, 'status.osReadyReason');
  const lastSeen = summary.connection === 'Online' ? 'now' : relativeTime(summary.connectionSince, now) || 'never';
  const versionCell = h(
    'td',
    { class: summary.wantedOsVersion && summary.wantedOsVersion !== summary.runningOsVersion ? 'differs' : undefined },
    osVersionLine(summary),
  );
  return h(
    'tr',
    { 'data-device': summary.name },
    h('td', {}, link, chips.length ? h('div', { class: 'chips' }, chips) : undefined),
    h('td', {}, connectionBadge(summary.connection)),
    versionCell,
    h('td', {}, typeof reason === 'string' ? reason : ''),
    h('td', { title: summary.connectionSince }, lastSeen),
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
