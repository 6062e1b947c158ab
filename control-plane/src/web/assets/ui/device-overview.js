/**
 * One device's page, live (a watch of the device): name, Online/Offline, OS version asked for against running,
 * what it reports (hardware, disks, interfaces, temperature, configuration applied or fallen back, hooks, OS
 * slots), its conditions with readable times, and the operations of spec 000 "Dashboard operations": Edit detail
 * (OS version), the Reboot/Shutdown menu, the device's applications, file upload and download, and its health
 * checks. Remote operations are disabled, with the reason, while the device is offline.
 */
import { osVersionLine, summarizeDevice } from '../api/device-view.js';
import { readableTime, relativeTime, singleWatchResource } from '../api/live-collections.js';
import { resourcePath } from '../api/paths.js';
import { connectionBadge } from './device-list.js';
import { confirmDialog, h, menu, show, table } from './dom.js';
import { renderApplications } from './applications.js';
import { renderFileTransfer } from './file-transfer.js';
import { renderHealthChecks } from './health-checks.js';
import { renderOsVersionEditor } from './os-version-editor.js';
import { DevicePanels } from './device-panels.js';
import { renderMetricCharts } from './metric-charts.js';

const OFFLINE_REASON =
  'The device is offline: reboot, shutdown, the terminal, file transfers and restarts need it online.';

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {string} name the device
 */
export function renderDeviceOverview(view, ctx, name) {
  const messages = h('div');
  const back = h('a', { href: '#' }, '← Devices');
  back.addEventListener('click', (event) => {
    event.preventDefault();
    ctx.navigate({ screen: 'devices', parent: `${name.split('/').slice(0, 3).join('/')}/-` });
  });
  const heading = h('div', { class: 'header-row' });
  const offlineNote = h('p', { class: 'notice warn', role: 'status', hidden: true }, OFFLINE_REASON);
  const details = h('section', { class: 'card' });
  const panels = new DevicePanels();
  const reported = h('section', { class: 'card' }, h('h2', {}, 'Reported by the device'), panels.element);
  const charts = h('section', { class: 'card' });
  const [applications, files, checks] = [
    h('section', { class: 'card' }),
    h('section', { class: 'card' }),
    h('section', { class: 'card' }),
  ];
  const remote = h(
    'fieldset',
    { class: 'remote' },
    h('legend', { class: 'visually-hidden' }, 'Remote operations'),
    terminalCard(ctx, name),
    applications,
    files,
  );
  view.replaceChildren(
    h('p', {}, back),
    messages,
    heading,
    offlineNote,
    h('p', { class: 'muted' }, `Loading ${name}…`),
  );
  /** @type {(Record<string, unknown> & { name: string }) | undefined} */
  let device;
  const detailsArea = h('div');
  const editor = h('div');
  /** @type {boolean | undefined} */
  let shownOffline;
  /** @type {HTMLElement} */
  let controls = h('span');
  const redraw = () => {
    if (!device) return;
    const summary = summarizeDevice(device);
    const offline = summary.connection !== 'Online';
    // the controls are made again only when the device goes online or offline: an open menu stays open while the
    // device's status changes (its metrics come every few seconds)
    if (offline !== shownOffline) {
      shownOffline = offline;
      controls = offline
        ? h(
            'button',
            { type: 'button', disabled: true, title: OFFLINE_REASON, 'aria-describedby': 'offline-reason' },
            'Device ▾',
          )
        : menu('Device', [
            { label: 'Reboot', run: () => void power(ctx, messages, name, 'reboot') },
            { label: 'Shutdown', danger: true, run: () => void power(ctx, messages, name, 'shutdown') },
          ]);
    }
    heading.replaceChildren(h('h1', {}, summary.id, ' ', connectionBadge(summary.connection)), controls);
    offlineNote.hidden = !offline;
    offlineNote.id = 'offline-reason';
    remote.disabled = offline;
    drawDetails(detailsArea, device);
    panels.update(device);
  };
  const edit = h('button', { type: 'button' }, 'Edit detail');
  edit.addEventListener('click', () => {
    if (!device) return;
    edit.hidden = true;
    const close = () => {
      editor.replaceChildren();
      edit.hidden = false;
    };
    renderOsVersionEditor(editor, ctx, summarizeDevice(device), { saved: close, cancelled: close });
  });
  details.replaceChildren(h('div', { class: 'header-row' }, h('h2', {}, 'Detail'), edit), detailsArea, editor);
  let first = true;
  const refreshChecks = () => {
    if (device) void renderHealthChecks(checks, ctx, device, refreshChecks);
  };
  ctx.live.open(`${resourcePath(name)}:watch`, {
    reopenBody: () => ({}),
    onMessage: (message) => {
      const changed = singleWatchResource(message, 'device');
      if (changed === undefined) return;
      if (changed === null) {
        show(messages, 'error', `${name} was deleted.`);
        return;
      }
      device = changed;
      if (first) {
        first = false;
        view.replaceChildren(
          h('p', {}, back),
          messages,
          heading,
          offlineNote,
          details,
          charts,
          reported,
          remote,
          checks,
        );
        renderMetricCharts(charts, ctx, name);
        renderApplications(applications, ctx, name);
        renderFileTransfer(files, ctx, name);
        void renderHealthChecks(checks, ctx, device, refreshChecks);
      }
      redraw();
    },
    onState: (state, error) => {
      if (state === 'failed') show(messages, 'error', error);
    },
  });
  ctx.live.every(redraw, 10_000); // relative times age
}

/**
 * The terminal tab: Open terminal loads xterm.js (a chunk of its own) and starts a shell on the device; Close
 * terminal ends it. Leaving the page ends it too.
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 * @returns {HTMLElement}
 */
function terminalCard(ctx, device) {
  const area = h('div', { class: 'terminal-area' });
  const status = h('span', { class: 'muted', role: 'status' });
  const open = h('button', { type: 'button', class: 'primary' }, 'Open terminal');
  const close = h('button', { type: 'button', hidden: true }, 'Close terminal');
  /** @type {(() => void) | undefined} */
  let stop;
  const closed = () => {
    stop?.();
    stop = undefined;
    open.hidden = false;
    close.hidden = true;
  };
  open.addEventListener('click', async () => {
    open.hidden = true;
    close.hidden = false;
    status.textContent = 'Connecting…';
    try {
      const { openTerminal } = await import('./terminal.js');
      stop = openTerminal(area, device, ctx.apiKey, (why) => {
        status.textContent = `Session ended: ${why}`;
        open.hidden = false;
        close.hidden = true;
      });
      status.textContent = 'Shell on the device';
    } catch (err) {
      status.textContent = `The terminal could not open: ${String(err)}`;
      closed();
    }
  });
  close.addEventListener('click', closed);
  ctx.live.track({ state: 'live', stop: () => stop?.() });
  return h(
    'section',
    { class: 'card' },
    h('div', { class: 'header-row' }, h('h2', {}, 'Terminal'), h('div', { class: 'row' }, status, open, close)),
    area,
  );
}

/**
 * The detail table and the conditions.
 * @param {HTMLElement} area
 * @param {Record<string, unknown> & { name: string }} device
 */
function drawDetails(area, device) {
  const summary = summarizeDevice(device);
  const now = Date.now();
  const row = (/** @type {string} */ label, /** @type {import('./dom.js').Child} */ value) =>
    h('tr', {}, h('th', {}, label), h('td', {}, value));
  const since = summary.connectionSince
    ? ` since ${readableTime(summary.connectionSince)} (${relativeTime(summary.connectionSince, now)})`
    : '';
  area.replaceChildren(
    h(
      'table',
      {},
      h(
        'tbody',
        {},
        row('Name', summary.name),
        row('State', `${summary.connection}${since}`),
        row('Device type', summary.deviceType || 'not reported'),
        row('OS version (spec.osVersion)', summary.wantedOsVersion || '(not set)'),
        row('Running OS version (status.deviceInfo.osVersion)', summary.runningOsVersion || 'not reported'),
        row('OS', osVersionLine(summary)),
      ),
    ),
    h('h2', {}, 'Conditions'),
    summary.conditions.length === 0
      ? h('p', { class: 'muted' }, 'No conditions reported.')
      : table(
          ['Type', 'Status', 'Reason', 'Message', 'Since'],
          summary.conditions.map((c) => [
            c.type,
            c.status,
            c.reason,
            c.message,
            h(
              'span',
              { title: c.lastTransitionTime },
              readableTime(c.lastTransitionTime),
              ' (',
              relativeTime(c.lastTransitionTime, now),
              ')',
            ),
          ]),
        ),
  );
}

/**
 * Reboot or Shutdown, after the user confirms.
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {string} name
 * @param {'reboot' | 'shutdown'} action
 */
async function power(ctx, messages, name, action) {
  const what = action === 'reboot' ? 'Reboot' : 'Shut down';
  const consequence =
    action === 'reboot'
      ? 'The device runs its on-shutdown hooks and restarts; it is offline until it is back.'
      : 'The device runs its on-shutdown hooks and powers off; it stays offline until someone powers it on.';
  if (!(await confirmDialog(`${what} ${name}?`, consequence, what))) return;
  try {
    await ctx.client.power(name, action);
    show(messages, 'ok', `${what}: the device accepted the request.`);
  } catch (err) {
    show(messages, 'error', err);
  }
}
