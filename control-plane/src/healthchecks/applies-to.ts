import type { Doc } from '../resources/resource-table.js';

/** `projects/p/regions/r` of `projects/p/regions/r/<plural>/<id>`. */
export const regionOf = (name: string): string => name.split('/').slice(0, 4).join('/');

const idOf = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/**
 * Whether a health check applies to a device: both are in the same project and region, and the device names
 * the check in `spec.healthChecks` (full name or id) or has every label of the check's
 * `spec.selector.matchLabels` (an empty selector matches every device of the region; no selector, none).
 */
export function appliesTo(check: Doc, device: Doc): boolean {
  const checkName = check['name'] as string;
  const deviceName = device['name'] as string;
  if (regionOf(checkName) !== regionOf(deviceName)) return false;
  const named = ((device['spec'] ?? {}) as Doc)['healthChecks'];
  if (Array.isArray(named) && named.some((n) => n === checkName || n === idOf(checkName))) return true;
  const selector = ((check['spec'] ?? {}) as Doc)['selector'] as Doc | undefined;
  if (selector === undefined) return false;
  const wanted = (selector['matchLabels'] ?? {}) as Record<string, string>;
  const labels = (((device['metadata'] ?? {}) as Doc)['labels'] ?? {}) as Record<string, string>;
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}
