/**
 * Numbers the device reports, written with their unit, which the field's name carries (`sizeBytes`,
 * `mainCelsius`, `cpuPercent`, `speedMbps`, `speedGHz`, `durationMs`); other numbers as they are.
 */
import { formatBytes } from './transfer-requests.js';

/**
 * @param {string} key the field's name
 * @param {number} value
 * @returns {string}
 */
export function formatQuantity(key, value) {
  if (/Bytes$/.test(key)) return formatBytes(value);
  if (/Celsius$/.test(key)) return `${value.toFixed(1)} °C`;
  if (/Percent$/.test(key)) return `${value.toFixed(1)} %`;
  if (/Mbps$/.test(key)) return value >= 1000 ? `${trim(value / 1000)} Gbit/s` : `${trim(value)} Mbit/s`;
  if (/GHz$/.test(key)) return `${trim(value)} GHz`;
  if (/Ms$/.test(key)) return value >= 1000 ? `${trim(value / 1000)} s` : `${trim(value)} ms`;
  return String(value);
}

/**
 * At most one decimal, none when whole.
 * @param {number} value
 * @returns {string}
 */
function trim(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
