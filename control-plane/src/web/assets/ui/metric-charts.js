/**
 * Charts of a device's CPU, memory, storage and temperature over the last hour, day or month, from
 * `GET /v1/{device}/metrics` (uPlot, loaded only when a device page opens). The shown range is read again every
 * minute while the page is open.
 */
import { queryString, resourcePath } from '../api/paths.js';
import { h, show } from './dom.js';

const RANGES = /** @type {const} */ ([
  ['hour', 'Last hour', 3_600_000, '60s'],
  ['day', 'Last day', 86_400_000, '15m'],
  ['month', 'Last 30 days', 30 * 86_400_000, '6h'],
]);

/** @typedef {{ time: string, cpuPercent?: number, memoryUsedBytes?: number, memoryTotalBytes?: number, storageUsedBytes?: number, storageTotalBytes?: number, temperatureCelsius?: number }} Point */

const SERIES = /** @type {const} */ ([
  ['CPU', '%', (/** @type {Point} */ p) => p.cpuPercent],
  ['Memory', '%', (/** @type {Point} */ p) => percent(p.memoryUsedBytes, p.memoryTotalBytes)],
  ['Storage', '%', (/** @type {Point} */ p) => percent(p.storageUsedBytes, p.storageTotalBytes)],
  ['Temperature', '°C', (/** @type {Point} */ p) => p.temperatureCelsius],
]);

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 */
export function renderMetricCharts(card, ctx, device) {
  const messages = h('div');
  const charts = h('div', { class: 'charts' });
  /** @type {string} */
  let range = 'hour';
  const choice = h(
    'div',
    { class: 'row', role: 'radiogroup', 'aria-label': 'Chart range' },
    RANGES.map(([id, label]) =>
      h(
        'label',
        { class: 'choice' },
        h('input', {
          type: 'radio',
          name: 'chartRange',
          value: id,
          checked: id === range,
          onchange: () => {
            range = id;
            void load();
          },
        }),
        label,
      ),
    ),
  );
  card.replaceChildren(h('h2', {}, 'Metrics'), choice, messages, charts);
  const load = async () => {
    const [, , span, step] = RANGES.find(([id]) => id === range) ?? RANGES[0];
    const to = new Date();
    const from = new Date(to.getTime() - span);
    try {
      const [answer, { default: UPlot }] = await Promise.all([
        ctx.client.request(
          'GET',
          `${resourcePath(device)}/metrics${queryString({ from: from.toISOString(), to: to.toISOString(), step })}`,
        ),
        import('uplot'),
      ]);
      const points = /** @type {Point[]} */ (Array.isArray(answer['points']) ? answer['points'] : []);
      messages.replaceChildren();
      if (points.length === 0) {
        charts.replaceChildren(h('p', { class: 'muted' }, 'No metrics reported in this range.'));
        return;
      }
      const times = points.map((p) => Date.parse(p.time) / 1000);
      const width = Math.max(260, Math.min(520, charts.clientWidth - 16));
      charts.replaceChildren(
        ...SERIES.map(([title, unit, pick]) => {
          const box = h('figure', { class: 'chart', 'aria-label': `${title} (${unit}), ${range}` });
          const values = points.map((p) => pick(p) ?? null);
          const last = values.filter((v) => v !== null).at(-1);
          box.append(
            h(
              'figcaption',
              {},
              `${title}: ${last === undefined || last === null ? 'not reported' : `${last.toFixed(1)} ${unit}`}`,
            ),
          );
          new UPlot(
            {
              width,
              height: 140,
              legend: { show: false },
              scales: { y: unit === '%' ? { range: [0, 100] } : { auto: true } },
              series: [
                {},
                { label: `${title} (${unit})`, stroke: '#1f6feb', width: 1.5, fill: 'rgba(31,111,235,0.08)' },
              ],
              axes: [{}, { size: 44 }],
            },
            [times, values],
            box,
          );
          return box;
        }),
      );
    } catch (err) {
      show(messages, 'error', err);
    }
  };
  void load();
  ctx.live.every(() => void load(), 60_000);
}

/**
 * @param {number | undefined} used
 * @param {number | undefined} total
 * @returns {number | undefined}
 */
function percent(used, total) {
  return used === undefined || total === undefined || total <= 0 ? undefined : (100 * used) / total;
}
