/**
 * The health checks of the device's region: which ones this device runs and how they fare (its
 * `Healthy/<id>` conditions), a form that defines a new one (for this device, for labelled devices, or for the
 * whole region) with every field of its type, Edit (the same form, filled in) and Delete.
 */
import { defineHealthCheck, removeHealthCheck } from '../api/client.js';
import { summarizeDevice } from '../api/device-view.js';
import {
  CHECK_TYPES,
  DEVICE_FILE_TYPES,
  HTTP_METHODS,
  checkAppliesTo,
  describeCheck,
  describeSelector,
  fieldsFromCheck,
  healthCheckFromForm,
} from '../api/health-check-form.js';
import { idOf, regionOf } from '../api/paths.js';
import { busy, confirmDialog, h, show, table, valueOf } from './dom.js';

/** The form's fields of each type (the others are hidden). */
const FIELDS_OF = {
  HTTP: ['url', 'method', 'expectedStatusMin', 'expectedStatusMax', 'bodyContains'],
  TCP: ['host', 'port'],
  GRPC: ['host', 'port', 'grpcService', 'grpcTls'],
  ICMP: ['host'],
  COMMAND: ['command', 'runAsRoot'],
  DEVICE_FILE: ['path', 'fileType'],
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
  const editing = checkForm(ctx, messages, device, refresh);
  card.append(
    checks.length === 0
      ? h('p', { class: 'muted' }, 'No health check is defined in this region.')
      : table(
          ['Check', 'Probe', 'Runs on', 'This device', ''],
          checks.map((check) => {
            const id = idOf(check.name);
            const condition = conditions.find((c) => c.type === `Healthy/${id}`);
            const edit = h('button', { type: 'button', 'aria-label': `Edit ${id}` }, 'Edit');
            edit.addEventListener('click', () => editing.fill(check));
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
            return [id, describeCheck(check), describeSelector(check), here, h('div', { class: 'row' }, edit, remove)];
          }),
        ),
    editing.form,
  );
}

/**
 * The form that defines a check, or edits one (Edit on its row fills it in; the id is then fixed).
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {Record<string, unknown> & { name: string }} device
 * @param {() => void} refresh
 * @returns {{ form: HTMLFormElement, fill: (check: Record<string, unknown> & { name: string }) => void }}
 */
function checkForm(ctx, messages, device, refresh) {
  const type = h(
    'select',
    { name: 'type' },
    CHECK_TYPES.map((t) => h('option', { value: t }, t)),
  );
  const input = (/** @type {string} */ name, /** @type {Record<string, string | number | boolean>} */ props = {}) =>
    h('input', { type: 'text', name, ...props });
  /** @type {Record<string, HTMLLabelElement>} */
  const typed = {
    url: h('label', {}, 'URL', input('url', { placeholder: 'http://127.0.0.1:8000/health' })),
    method: h(
      'label',
      {},
      'Method',
      h(
        'select',
        { name: 'method' },
        HTTP_METHODS.map((m) => h('option', { value: m }, m)),
      ),
    ),
    expectedStatusMin: h(
      'label',
      {},
      'Expected status from',
      input('expectedStatusMin', { type: 'number', min: 100, max: 599, placeholder: '200' }),
    ),
    expectedStatusMax: h(
      'label',
      {},
      'Expected status to',
      input('expectedStatusMax', { type: 'number', min: 100, max: 599, placeholder: '399' }),
    ),
    bodyContains: h('label', {}, 'Body contains', input('bodyContains', { placeholder: 'ok' })),
    host: h('label', {}, 'Host', input('host', { placeholder: '127.0.0.1' })),
    port: h('label', {}, 'Port', input('port', { type: 'number', min: 1, max: 65535 })),
    grpcService: h('label', {}, 'gRPC service', input('grpcService', { placeholder: '(the whole server)' })),
    grpcTls: h('label', { class: 'choice' }, h('input', { type: 'checkbox', name: 'grpcTls' }), 'TLS'),
    command: h(
      'label',
      {},
      'Command (program and arguments)',
      input('command', { placeholder: 'test -w /outpost/data' }),
    ),
    runAsRoot: h('label', { class: 'choice' }, h('input', { type: 'checkbox', name: 'runAsRoot' }), 'Run as root'),
    path: h('label', {}, 'Path on device', input('path', { placeholder: '/dev/ttyUSB0' })),
    fileType: h(
      'label',
      {},
      'File type',
      h(
        'select',
        { name: 'fileType' },
        h('option', { value: '' }, 'any'),
        DEVICE_FILE_TYPES.map((t) => h('option', { value: t }, t)),
      ),
    ),
  };
  const showTyped = () => {
    const wanted = FIELDS_OF[/** @type {keyof typeof FIELDS_OF} */ (type.value)] ?? [];
    for (const [field, label] of Object.entries(typed)) label.hidden = !wanted.includes(field);
  };
  type.addEventListener('change', showTyped);
  showTyped();
  const idInput = input('id', { required: true, placeholder: 'web' });
  const labels = input('labels', { placeholder: 'role=gateway' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create health check');
  const cancel = h('button', { type: 'button', hidden: true }, 'Cancel edit');
  const heading = h('h3', {}, 'Define a health check');
  /** @type {string | undefined} the check being edited */
  let editing;
  const form = h(
    'form',
    {},
    heading,
    h('div', { class: 'row' }, h('label', {}, 'Id', idInput), h('label', {}, 'Type', type), Object.values(typed)),
    h(
      'div',
      { class: 'row' },
      h('label', {}, 'Interval (s)', input('intervalSeconds', { type: 'number', min: 1, placeholder: '10' })),
      h('label', {}, 'Timeout (s)', input('timeoutSeconds', { type: 'number', min: 1, placeholder: '5' })),
      h(
        'label',
        {},
        'Success threshold',
        input('successThreshold', { type: 'number', min: 1, max: 100, placeholder: '1' }),
      ),
      h(
        'label',
        {},
        'Failure threshold',
        input('failureThreshold', { type: 'number', min: 1, max: 100, placeholder: '3' }),
      ),
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
      cancel,
    ),
  );
  const checked = (/** @type {string} */ name) => {
    const control = form.elements.namedItem(name);
    return control instanceof HTMLInputElement && control.checked;
  };
  /** @param {Record<string, unknown> & { name: string }} check */
  const fill = (check) => {
    const fields = fieldsFromCheck(check);
    editing = check.name;
    for (const [name, value] of Object.entries(fields)) {
      const control = form.elements.namedItem(name);
      if (control instanceof HTMLInputElement && control.type === 'checkbox') control.checked = value === true;
      else if (control instanceof RadioNodeList) control.value = String(value);
      else if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement)
        control.value = String(value);
    }
    idInput.readOnly = true;
    showTyped();
    heading.textContent = `Edit ${fields.id}`;
    submit.textContent = 'Save health check';
    cancel.hidden = false;
    idInput.focus();
  };
  const reset = () => {
    editing = undefined;
    form.reset();
    idInput.readOnly = false;
    showTyped();
    heading.textContent = 'Define a health check';
    submit.textContent = 'Create health check';
    cancel.hidden = true;
  };
  cancel.addEventListener('click', reset);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const appliesTo = valueOf(form, 'appliesTo');
    const built = healthCheckFromForm(device.name, {
      id: valueOf(form, 'id'),
      type: type.value,
      url: valueOf(form, 'url'),
      method: valueOf(form, 'method'),
      expectedStatusMin: valueOf(form, 'expectedStatusMin'),
      expectedStatusMax: valueOf(form, 'expectedStatusMax'),
      bodyContains: valueOf(form, 'bodyContains'),
      host: valueOf(form, 'host'),
      port: valueOf(form, 'port'),
      grpcService: valueOf(form, 'grpcService'),
      grpcTls: checked('grpcTls'),
      command: valueOf(form, 'command'),
      runAsRoot: checked('runAsRoot'),
      path: valueOf(form, 'path'),
      fileType: valueOf(form, 'fileType'),
      intervalSeconds: valueOf(form, 'intervalSeconds'),
      timeoutSeconds: valueOf(form, 'timeoutSeconds'),
      successThreshold: valueOf(form, 'successThreshold'),
      failureThreshold: valueOf(form, 'failureThreshold'),
      appliesTo: appliesTo === 'labels' || appliesTo === 'all' ? appliesTo : 'device',
      labels: valueOf(form, 'labels'),
    });
    if ('error' in built) {
      show(messages, 'error', built.error);
      return;
    }
    void busy(submit, async () => {
      try {
        if (editing !== undefined) await ctx.client.replaceHealthCheck(built.check);
        else
          await defineHealthCheck(ctx.client, device.name, built.check, appliesTo !== 'labels' && appliesTo !== 'all');
        refresh();
      } catch (err) {
        show(messages, 'error', err);
      }
    });
  });
  return { form, fill };
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
