import type { RolloutDevice } from './device-record.js';
import {
  desiredVersion,
  failingChecksOf,
  healthConditionsOf,
  isOnline,
  osReadyOf,
  runningVersion,
} from './device-record.js';

/**
 * Where one device stands in a rollout to a version:
 * - notTargeted: its spec.osVersion is another version;
 * - inFlight: asked for the version and on its way (downloading, rebooting, or booted but its health checks not
 *   yet passing: booted is not healthy);
 * - done: runs the version and every health check passes;
 * - failed: OSReady RolledBack or Failed, or it runs the version and a health check fails;
 * - offline: asked for the version, not there, and not connected (it converges when it returns).
 */
export type DeviceState = 'notTargeted' | 'inFlight' | 'done' | 'failed' | 'offline';

export const DEVICE_STATES: readonly DeviceState[] = ['notTargeted', 'inFlight', 'done', 'failed', 'offline'];

export interface DeviceAssessment {
  state: DeviceState;
  /** why it failed: the OSReady message, or the failing health checks */
  why?: string;
  /** a failure after the device reached the version: a health check turned from passing to failing */
  healthRegression?: boolean;
}

/** OSReady reasons of a device that has left for the new version: offline is part of the way (a reboot). */
const ON_THE_WAY: ReadonlySet<string> = new Set(['Installing', 'Rebooting', 'Verifying']);
const FAILED: ReadonlySet<string> = new Set(['RolledBack', 'Failed']);

export function assessDevice(device: RolloutDevice, version: string): DeviceAssessment {
  if (desiredVersion(device) !== version) return { state: 'notTargeted' };
  if (runningVersion(device) === version) {
    const failing = failingChecksOf(device);
    // it committed the version only with no check failing: a check failing now turned from passing
    if (failing.length > 0) {
      return { state: 'failed', why: `health check failing: ${failing.join(', ')}`, healthRegression: true };
    }
    const pending = healthConditionsOf(device).some((c) => c.status !== 'True');
    return { state: pending ? 'inFlight' : 'done' };
  }
  const osReady = osReadyOf(device);
  if (osReady && osReady.status === 'False' && FAILED.has(osReady.reason ?? '')) {
    return { state: 'failed', why: `${osReady.reason}: ${osReady.message ?? ''}`.trim() };
  }
  if (!isOnline(device) && !ON_THE_WAY.has(osReady?.reason ?? '')) return { state: 'offline' };
  return { state: 'inFlight' };
}

/**
 * Since when (ms since the epoch) a device that is done has been healthy: the latest lastTransitionTime of its
 * OSReady condition (True once it committed the version) and of its passing health checks. Undefined when no
 * condition carries a time.
 */
export function healthySince(device: RolloutDevice): number | undefined {
  const osReady = osReadyOf(device);
  const times = [...(osReady?.status === 'True' ? [osReady] : []), ...healthConditionsOf(device)]
    .map((c) => (c.lastTransitionTime === undefined ? Number.NaN : Date.parse(c.lastTransitionTime)))
    .filter((t) => !Number.isNaN(t));
  return times.length === 0 ? undefined : Math.max(...times);
}
