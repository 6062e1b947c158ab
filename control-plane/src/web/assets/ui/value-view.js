/**
 * Any JSON value the device reports, shown readably: an object as a table of its fields, a list of objects (or an
 * object of objects, such as interfaces by name) as a table with a column per field, times (`…Time` fields and
 * RFC 3339 strings) in local time, quantities by their field's name (`…Bytes`, `…Celsius`, `…Percent`, `…Mbps`,
 * `…GHz`, `…Ms`), nothing as HTML.
 */
import { isObject } from '../api/errors.js';
import { readableTime } from '../api/live-collections.js';
import { formatQuantity } from '../api/quantities.js';
import { h } from './dom.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/**
 * @param {unknown} value
 * @param {number} [depth]
 * @param {string} [key] the field's name, which says its unit
 * @returns {HTMLElement | string}
 */
export function describeValue(value, depth = 0, key = '') {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatQuantity(key, value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return RFC3339.test(value) ? readableTime(value) : value;
  if (typeof value !== 'object') return String(value);
  if (depth > 4) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'muted' }, 'none');
    if (value.every(isObject)) {
      return rowsTable(
        value.map((v) => /** @type {[string, unknown]} */ (['', v])),
        depth,
        false,
      );
    }
    return value
      .map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(describeValue(v, depth + 1, key))))
      .join(', ');
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return h('span', { class: 'muted' }, 'none');
  if (entries.length > 1 && entries.every(([, v]) => isObject(v))) return rowsTable(entries, depth, true);
  return h(
    'table',
    { class: 'compact' },
    h(
      'tbody',
      {},
      entries.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, describeValue(v, depth + 1, k)))),
    ),
  );
}

/**
 * Objects as the rows of one table, a column per field (and, `named`, a first column with each one's key).
 * @param {[string, unknown][]} rows
 * @param {number} depth
 * @param {boolean} named
 * @returns {HTMLElement}
 */
function rowsTable(rows, depth, named) {
  const objects = rows.map(([name, v]) => /** @type {[string, Record<string, unknown>]} */ ([name, v]));
  const columns = [...new Set(objects.flatMap(([, v]) => Object.keys(v)))];
  return h(
    'table',
    { class: 'compact' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        named ? h('th', {}, 'name') : '',
        columns.map((c) => h('th', {}, c)),
      ),
    ),
    h(
      'tbody',
      {},
      objects.map(([name, v]) =>
        h(
          'tr',
          {},
          named ? h('th', {}, name) : '',
          columns.map((c) => h('td', {}, describeValue(v[c], depth + 1, c))),
        ),
      ),
    ),
  );
}
