/**
 * Any JSON value the device reports, shown readably: an object as a table of its fields, a list of objects as a
 * table with a column per field, times (`…Time` fields and RFC 3339 strings) in local time, nothing as HTML.
 */
import { readableTime } from '../api/live-collections.js';
import { h } from './dom.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/**
 * @param {unknown} value
 * @param {number} [depth]
 * @returns {HTMLElement | string}
 */
export function describeValue(value, depth = 0) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return RFC3339.test(value) ? readableTime(value) : value;
  if (typeof value !== 'object') return String(value);
  if (depth > 4) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'muted' }, 'none');
    if (value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) {
      const columns = [...new Set(value.flatMap((v) => Object.keys(v)))];
      return h(
        'table',
        { class: 'compact' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            columns.map((c) => h('th', {}, c)),
          ),
        ),
        h(
          'tbody',
          {},
          value.map((v) =>
            h(
              'tr',
              {},
              columns.map((c) => h('td', {}, describeValue(v[c], depth + 1))),
            ),
          ),
        ),
      );
    }
    return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return h('span', { class: 'muted' }, 'none');
  return h(
    'table',
    { class: 'compact' },
    h(
      'tbody',
      {},
      entries.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, describeValue(v, depth + 1)))),
    ),
  );
}
