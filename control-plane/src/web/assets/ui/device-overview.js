/**
 * One device's overview: name, Online/Offline, OS version asked for against running, conditions, and the
 * operations of spec 000 "Dashboard operations": Edit detail (OS version), the Reboot/Shutdown menu, the
 * device's applications, file upload and download, and its health checks.
 */
import { osVersionLine, summarizeDevice } from '../api/device-view.js';
import { connectionBadge } from './device-list.js';
import { confirmDialog, h, menu, show, table } from './dom.js';
import { renderApplications } from './applications.js';
import { renderFileTransfer } from './file-transfer.js';
import { renderHealthChecks } from './health-checks.js';
import { renderOsVersionEditor } from './os-version-editor.js';

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {string} name the device
 */
export async function renderDeviceOverview(view, ctx, name) {
  const messages = h('div');
  const back = h('a', { href: '#' }, '← Devices');
  back.addEventListener('click', (event) => {
    event.preventDefault();
    ctx.navigate({ screen: 'devices', parent: `${name.split('/').slice(0, 3).join('/')}/-` });
  });
  view.replaceChildren(h('p', {}, back), messages, h('p', { class: 'muted' }, `Loading ${name}…`));
  /** @type {Record<string, unknown> & { name: string }} */
  let device;
  try {
    device = await ctx.client.get(name);
  } catch (err) {
    view.replaceChildren(h('p', {}, back), messages);
    show(messages, 'error', err);
    return;
  }
  const refresh = () => void renderDeviceOverview(view, ctx, name);
  const summary = summarizeDevice(device);
  const details = h('section', { class: 'card' });
  const sections = [h('section', { class: 'card' }), h('section', { class: 'card' }), h('section', { class: 'card' })];
  const [applications, files, checks] = sections;
  view.replaceChildren(
    h('p', {}, back),
    messages,
    h(
      'div',
      { class: 'header-row' },
      h('h1', {}, summary.id, ' ', connectionBadge(summary.connection)),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', onclick: refresh }, 'Refresh'),
        menu('Device', [
          { label: 'Reboot', run: () => void power(ctx, messages, name, 'reboot') },
          { label: 'Shutdown', danger: true, run: () => void power(ctx, messages, name, 'shutdown') },
        ]),
      ),
    ),
    details,
    ...sections,
  );
  renderDetails(details, ctx, device, refresh);
  if (applications) void renderApplications(applications, ctx, name);
  if (files) renderFileTransfer(files, ctx, name);
  if (checks) void renderHealthChecks(checks, ctx, device, refresh);
}

/**
 * The detail card: what the device is and runs, with Edit detail for the OS version.
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {Record<string, unknown> & { name: string }} device
 * @param {() => void} refresh
 */
function renderDetails(card, ctx, device, refresh) {
  const summary = summarizeDevice(device);
  const editor = h('div');
  const edit = h('button', { type: 'button' }, 'Edit detail');
  edit.addEventListener('click', () => {
    edit.hidden = true;
    renderOsVersionEditor(editor, ctx, summary, {
      saved: refresh,
      cancelled: () => {
        editor.replaceChildren();
        edit.hidden = false;
      },
    });
  });
  const row = (/** @type {string} */ label, /** @type {import('./dom.js').Child} */ value) =>
    h('tr', {}, h('th', {}, label), h('td', {}, value));
  card.replaceChildren(
    h('div', { class: 'header-row' }, h('h2', {}, 'Detail'), edit),
    h(
      'table',
      {},
      h(
        'tbody',
        {},
        row('Name', summary.name),
        row('State', `${summary.connection}${summary.connectionSince ? ` since ${summary.connectionSince}` : ''}`),
        row('Device type', summary.deviceType || 'not reported'),
        row('OS version (spec.osVersion)', summary.wantedOsVersion || '(not set)'),
        row('Running OS version (status.deviceInfo.osVersion)', summary.runningOsVersion || 'not reported'),
        row('OS', osVersionLine(summary)),
      ),
    ),
    editor,
    h('h2', {}, 'Conditions'),
    summary.conditions.length === 0
      ? h('p', { class: 'muted' }, 'No conditions reported.')
      : table(
          ['Type', 'Status', 'Reason', 'Message', 'Since'],
          summary.conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]),
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
