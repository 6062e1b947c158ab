/**
 * The health checks of the device's region: which ones this device runs and how they fare (its
 * `Healthy/<id>` conditions), a form that defines a new one (for this device, for labelled devices, or for the
 * whole region) and Delete.
 */
import { defineHealthCheck, removeHealthCheck } from '../api/client.js';
import { summarizeDevice } from '../api/device-view.js';
import {
  CHECK_TYPES,
  checkAppliesTo,
  describeCheck,
  describeSelector,
  healthCheckFromForm,
} from '../api/health-check-form.js';
import { idOf, regionOf } from '../api/paths.js';
import { busy, confirmDialog, h, show, table, valueOf } from './dom.js';

/** The form's fields of each type (the others are hidden). */
const FIELDS_OF = {
  HTTP: ['url'],
  TCP: ['host', 'port'],
  GRPC: ['host', 'port'],
  ICMP: ['host'],
  COMMAND: ['command'],
  DEVICE_FILE: ['path'],
};

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {Record<string, unknown> & { name: string }} device
 * @param {() => void} refresh re-renders the overview (after a change)
 */
export async function renderHealthChecks(card, ctx, device, refresh) {
  const messages = h('div');
  const region = regionOf(device.name);
  card.replaceChildren(h('h2', {}, `Health checks of ${region}`), messages);
  /** @type {(Record<string, unknown> & { name: string })[]} */
  let checks;
  try {
    checks = await ctx.client.listHealthChecks(region);
  } catch (err) {
    show(messages, 'error', err);
    return;
  }
  const conditions = summarizeDevice(device).conditions;
  card.append(
    checks.length === 0
      ? h('p', { class: 'muted' }, 'No health check is defined in this region.')
      : table(
          ['Check', 'Probe', 'Runs on', 'This device', ''],
          checks.map((check) => {
            const id = idOf(check.name);
            const condition = conditions.find((c) => c.type === `Healthy/${id}`);
            const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
            remove.addEventListener(
              'click',
              () => void busy(remove, () => deleteCheck(ctx, messages, device, check.name, refresh)),
            );
            const here = !checkAppliesTo(check, device)
              ? 'does not run it'
              : condition
                ? `${condition.status}/${condition.reason}`
                : 'runs it (no result yet)';
            return [id, describeCheck(check), describeSelector(check), here, remove];
          }),
        ),
    checkForm(ctx, messages, device, refresh),
  );
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {Record<string, unknown> & { name: string }} device
 * @param {() => void} refresh
 * @returns {HTMLElement}
 */
function checkForm(ctx, messages, device, refresh) {
  const type = h(
    'select',
    { name: 'type' },
    CHECK_TYPES.map((t) => h('option', { value: t }, t)),
  );
  /** @type {Record<string, HTMLLabelElement>} */
  const typed = {
    url: h('label', {}, 'URL', h('input', { type: 'text', name: 'url', placeholder: 'http://127.0.0.1:8000/health' })),
    host: h('label', {}, 'Host', h('input', { type: 'text', name: 'host', placeholder: '127.0.0.1' })),
    port: h('label', {}, 'Port', h('input', { type: 'number', name: 'port', min: 1, max: 65535 })),
    command: h(
      'label',
      {},
      'Command (program and arguments)',
      h('input', { type: 'text', name: 'command', placeholder: 'test -w /outpost/data' }),
    ),
    path: h('label', {}, 'Path on device', h('input', { type: 'text', name: 'path', placeholder: '/dev/ttyUSB0' })),
  };
  const showTyped = () => {
    const wanted = FIELDS_OF[/** @type {keyof typeof FIELDS_OF} */ (type.value)] ?? [];
    for (const [field, label] of Object.entries(typed)) label.hidden = !wanted.includes(field);
  };
  type.addEventListener('change', showTyped);
  showTyped();
  const labels = h('input', { type: 'text', name: 'labels', placeholder: 'role=gateway' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create health check');
  const form = h(
    'form',
    {},
    h('h3', {}, 'Define a health check'),
    h(
      'div',
      { class: 'row' },
      h('label', {}, 'Id', h('input', { type: 'text', name: 'id', required: true, placeholder: 'web' })),
      h('label', {}, 'Type', type),
      Object.values(typed),
      h(
        'label',
        {},
        'Interval (s)',
        h('input', { type: 'number', name: 'intervalSeconds', min: 1, placeholder: '10' }),
      ),
      h('label', {}, 'Timeout (s)', h('input', { type: 'number', name: 'timeoutSeconds', min: 1, placeholder: '5' })),
    ),
    h(
      'div',
      { class: 'row' },
      h('span', { class: 'muted' }, 'Runs on:'),
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'radio', name: 'appliesTo', value: 'device', checked: true }),
        'this device',
      ),
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'radio', name: 'appliesTo', value: 'labels' }),
        'devices labelled',
        labels,
      ),
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'radio', name: 'appliesTo', value: 'all' }),
        'every device of the region',
      ),
      submit,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const appliesTo = valueOf(form, 'appliesTo');
    const built = healthCheckFromForm(device.name, {
      id: valueOf(form, 'id'),
      type: type.value,
      url: valueOf(form, 'url'),
      host: valueOf(form, 'host'),
      port: valueOf(form, 'port'),
      command: valueOf(form, 'command'),
      path: valueOf(form, 'path'),
      intervalSeconds: valueOf(form, 'intervalSeconds'),
      timeoutSeconds: valueOf(form, 'timeoutSeconds'),
      appliesTo: appliesTo === 'labels' || appliesTo === 'all' ? appliesTo : 'device',
      labels: valueOf(form, 'labels'),
    });
    if ('error' in built) {
      show(messages, 'error', built.error);
      return;
    }
    void busy(submit, async () => {
      try {
        await defineHealthCheck(ctx.client, device.name, built.check, appliesTo !== 'labels' && appliesTo !== 'all');
        refresh();
      } catch (err) {
        show(messages, 'error', err);
      }
    });
  });
  return form;
}

/**
 * Deletes a check after the user confirms, and drops it from this device's spec.healthChecks.
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {Record<string, unknown> & { name: string }} device
 * @param {string} name
 * @param {() => void} refresh
 */
async function deleteCheck(ctx, messages, device, name, refresh) {
  if (!(await confirmDialog(`Delete ${idOf(name)}?`, `Every device stops running ${name}.`, 'Delete'))) return;
  try {
    await removeHealthCheck(ctx.client, device.name, name);
    refresh();
  } catch (err) {
    show(messages, 'error', err);
  }
}
