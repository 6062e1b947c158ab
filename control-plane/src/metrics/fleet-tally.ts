import type { Doc } from '../resources/resource-table.js';

/** Counts of the fleet for the Prometheus gauges, kept up to date change by change. */
export interface FleetCounts {
  total: number;
  connected: number;
  /** by reported running OS version ('unknown' when none) */
  byOsVersion: Map<string, number>;
  /** by the reason of the OSReady condition ('none' without one) */
  byOsReadyReason: Map<string, number>;
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
  change(before: Doc | null, after: Doc | null): void {
    if (before !== null) this.count(before, -1);
    if (after !== null) this.count(after, +1);
  }

  private count(device: Doc, sign: 1 | -1): void {
    const status = (device['status'] ?? {}) as Doc;
    this.counts.total += sign;
    if (status['connectionStatus'] === 'CONNECTED') this.counts.connected += sign;
    const info = (status['deviceInfo'] ?? {}) as Doc;
    const version = typeof info['osVersion'] === 'string' && info['osVersion'] !== '' ? info['osVersion'] : 'unknown';
    bump(this.counts.byOsVersion, version, sign);
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Doc[]) : [];
    const osReady = conditions.find((c) => c['type'] === 'OSReady');
    bump(this.counts.byOsReadyReason, typeof osReady?.['reason'] === 'string' ? osReady['reason'] : 'none', sign);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}
