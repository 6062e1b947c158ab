/** Small DOM helpers of the dashboard: building elements, notices, the confirm dialog and the action menu. */
import { describeError } from '../api/errors.js';

/** @typedef {string | boolean | number | undefined | ((event: Event) => void)} Prop */
/** @typedef {Node | string | number | undefined | null | false} Child */

/**
 * An element with attributes (`onclick` and the like become listeners; `true` sets a boolean attribute, `false`
 * and undefined leave it out) and children (strings become text, never HTML).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, Prop>} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (value === true) element.setAttribute(key, '');
    else if (value !== false && value !== undefined) element.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/**
 * Replaces what `parent` holds.
 * @param {Element} parent
 * @param {...(Node | string)} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren(...children);
}

/**
 * A notice showing an error (an API error with its status and message) or a success.
 * @param {'error' | 'ok'} kind
 * @param {unknown} content an error, or the text of a success
 * @returns {HTMLDivElement}
 */
export function notice(kind, content) {
  const text = kind === 'error' ? describeError(content) : String(content);
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/**
 * Shows a notice in `area` (replacing the previous one).
 * @param {Element} area
 * @param {'error' | 'ok'} kind
 * @param {unknown} content
 */
export function show(area, kind, content) {
  area.replaceChildren(notice(kind, content));
}

/**
 * Asks the user to confirm in a modal dialog.
 * @param {string} title
 * @param {string} message
 * @param {string} confirmLabel
 * @returns {Promise<boolean>}
 */
export function confirmDialog(title, message, confirmLabel) {
  const dialog = h(
    'dialog',
    {},
    h(
      'form',
      { method: 'dialog' },
      h('h2', {}, title),
      h('p', {}, message),
      h(
        'div',
        { class: 'row' },
        h('button', { value: 'cancel', type: 'submit' }, 'Cancel'),
        h('button', { value: 'confirm', type: 'submit', class: 'primary' }, confirmLabel),
      ),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    dialog.showModal();
  });
}

/**
 * A drop-down menu of actions (a <details> element that closes when an item is chosen).
 * @param {string} label
 * @param {{ label: string, danger?: boolean, run: () => void }[]} items
 * @returns {HTMLDetailsElement}
 */
export function menu(label, items) {
  const details = h('details', { class: 'menu' }, h('summary', {}, `${label} ▾`));
  const list = h(
    'div',
    { role: 'menu' },
    items.map((item) =>
      h(
        'button',
        {
          type: 'button',
          role: 'menuitem',
          class: item.danger ? 'danger' : undefined,
          onclick: () => {
            details.open = false;
            item.run();
          },
        },
        item.label,
      ),
    ),
  );
  details.append(list);
  return details;
}

/**
 * Runs an action with its button disabled meanwhile.
 * @param {HTMLButtonElement | undefined} button
 * @param {() => Promise<void>} action
 * @returns {Promise<void>}
 */
export async function busy(button, action) {
  if (button) button.disabled = true;
  try {
    await action();
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * The value of a form's named control ('' when absent).
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {string}
 */
export function valueOf(form, name) {
  const control = form.elements.namedItem(name);
  if (control instanceof HTMLInputElement && control.type === 'radio') return control.checked ? control.value : '';
  if (control instanceof RadioNodeList) return control.value;
  if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement) return control.value;
  return '';
}

/**
 * A table with a header row and one row per entry of `rows` (each a list of cells).
 * @param {readonly string[]} headers
 * @param {readonly (Child | Child[])[][]} rows
 * @returns {HTMLTableElement}
 */
export function table(headers, rows) {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}
