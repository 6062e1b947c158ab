import type { Device, HealthCheck } from '@outpost/shared';

/** `projects/p/regions/r` of `projects/p/regions/r/<plural>/<id>`. */
export const regionOf = (name: string): string => name.split('/').slice(0, 4).join('/');

const idOf = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/**
 * Whether a health check applies to a device: both are in the same project and region, and the device names
 * the check in `spec.healthChecks` (full name or id) or has every label of the check's
 * `spec.selector.matchLabels` (an empty selector matches every device of the region; no selector, none).
 */
export function appliesTo(check: HealthCheck, device: Device): boolean {
  const checkName = check.name;
  if (regionOf(checkName) !== regionOf(device.name)) return false;
  const named = device.spec?.healthChecks;
  if (named?.some((n) => n === checkName || n === idOf(checkName))) return true;
  const selector = check.spec.selector;
  if (selector === undefined) return false;
  const labels = device.metadata?.labels ?? {};
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}
