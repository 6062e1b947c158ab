import type { Device } from '@outpost/shared';
import { touches } from '../resources/change-facts.js';

/** Counts of the fleet for the Prometheus gauges, kept up to date change by change. */
export interface FleetCounts {
  total: number;
  connected: number;
  /** by reported running OS version ('unknown' when none) */
  byOsVersion: Map<string, number>;
  /** by the reason of the OSReady condition ('none' without one) */
  byOsReadyReason: Map<string, number>;
}

/** The paths of a device that the counts read. */
const COUNTED_PATHS = ['status.connectionStatus', 'status.deviceInfo.osVersion', 'status.conditions'];

/**
 * Whether an update with these changed paths (undefined: a create or a delete) can move the counts. Those it
 * cannot are skipped without looking at their documents, which for a change another replica made are read
 * only when looked at (foreign-changes.ts).
 */
export function movesCounts(changed: readonly string[] | undefined): boolean {
  if (changed === undefined) return true;
  return COUNTED_PATHS.some((counted) => touches(changed, counted));
}

export class FleetTally {
  private readonly counts: FleetCounts = {
    total: 0,
    connected: 0,
    byOsVersion: new Map(),
    byOsReadyReason: new Map(),
  };

  get current(): Readonly<FleetCounts> {
    return this.counts;
  }

  /** Folds in one committed change: the device as it was (removed from the counts) and as it is. */
  change(before: Device | null, after: Device | null): void {
    if (before !== null) this.count(before, -1);
    if (after !== null) this.count(after, +1);
  }

  private count(device: Device, sign: 1 | -1): void {
    const status = device.status ?? {};
    this.counts.total += sign;
    if (status.connectionStatus === 'CONNECTED') this.counts.connected += sign;
    const version = status.deviceInfo?.osVersion;
    bump(this.counts.byOsVersion, version !== undefined && version !== '' ? version : 'unknown', sign);
    const osReady = status.conditions?.find((c) => c.type === 'OSReady');
    bump(this.counts.byOsReadyReason, osReady?.reason ?? 'none', sign);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}
