import type { RolloutDevice } from './device-record.js';
import { assessDevice, healthySince } from './device-state.js';
import type { DeviceState } from './device-state.js';

/** A device that failed, and why (the OSReady message, the failing checks, or the refusal of its write). */
export interface DeviceFailure {
  name: string;
  why: string;
  healthRegression?: boolean;
}

/** How a wave (or any set of devices) stands for one version. */
export interface WaveTally {
  total: number;
  notTargeted: number;
  inFlight: number;
  done: number;
  failed: number;
  offline: number;
  failures: DeviceFailure[];
  /** the latest time one of the done devices became healthy (ms since the epoch), for the soak */
  lastHealthyAt?: number;
  /** devices still on their way, for a wave that timed out */
  inFlightNames: string[];
}

export function tallyDevices(devices: Iterable<RolloutDevice>, version: string): WaveTally {
  const tally: WaveTally = {
    total: 0,
    notTargeted: 0,
    inFlight: 0,
    done: 0,
    failed: 0,
    offline: 0,
    failures: [],
    inFlightNames: [],
  };
  for (const device of devices) {
    const { state, why, healthRegression } = assessDevice(device, version);
    tally.total++;
    tally[state satisfies DeviceState]++;
    if (state === 'failed') {
      tally.failures.push({
        name: device.name,
        why: why ?? 'failed',
        ...(healthRegression ? { healthRegression } : {}),
      });
    } else if (state === 'inFlight') {
      tally.inFlightNames.push(device.name);
    } else if (state === 'done') {
      const since = healthySince(device);
      if (since !== undefined) tally.lastHealthyAt = Math.max(tally.lastHealthyAt ?? since, since);
    }
  }
  return tally;
}

/** The five counts of a tally, as progress events and tables show them. */
export const countsOf = (
  tally: WaveTally,
): Pick<WaveTally, 'total' | 'notTargeted' | 'inFlight' | 'done' | 'failed' | 'offline'> => ({
  total: tally.total,
  notTargeted: tally.notTargeted,
  inFlight: tally.inFlight,
  done: tally.done,
  failed: tally.failed,
  offline: tally.offline,
});
