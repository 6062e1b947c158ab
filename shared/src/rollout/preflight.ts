import type { RolloutDevice } from './device-record.js';
import {
  desiredVersion,
  deviceTypeOf,
  failingChecksOf,
  isOnline,
  runningVersion,
  slotVersionsOf,
} from './device-record.js';
import { compareVersions } from './semver.js';

/** An OS version as published for one device type (`osVersions/{type}-{version}`). */
export interface PublishedVersion {
  version: string;
  /** `deviceTypes/{id}` */
  deviceType: string;
  minimumPreviousVersion?: string;
}

export interface NamedReason {
  name: string;
  why: string;
}

/** What a wave holds before its devices are written, and what would go wrong. */
export interface WavePreflight {
  wave: string;
  total: number;
  /** devices already asked for the version (earlier run) */
  alreadyTargeted: number;
  /** devices the rollout would write */
  toWrite: number;
  /** writes the server would refuse (version not published for the type, minimum version not met, no OS management) */
  refused: NamedReason[];
  /** devices not connected now: they are written and converge when they return */
  offline: string[];
  /** devices with a failing health check: a trial boot does not commit while one fails */
  failingHealth: NamedReason[];
  /** devices whose type is not known yet: their agent checks the version instead */
  unknownType: string[];
}

/** Why the server would refuse writing `version` to the device (the rules of spec.osVersion), or undefined. */
export function writeRefusalOf(
  device: RolloutDevice,
  version: string,
  published: readonly PublishedVersion[],
): string | undefined {
  const running = runningVersion(device);
  if (version === running) return undefined;
  if (device.status?.deviceInfo?.managedFeatures?.os === false) return 'OS management is disabled on this device';
  const type = deviceTypeOf(device);
  if (type === undefined) return undefined;
  const release = published.find((p) => p.version === version && p.deviceType === `deviceTypes/${type}`);
  if (!release) {
    return slotVersionsOf(device).includes(version) ? undefined : `${version} is not published for device type ${type}`;
  }
  const minimum = release.minimumPreviousVersion;
  if (minimum !== undefined && running !== undefined && (compareVersions(running, minimum) ?? 0) < 0) {
    return `${version} needs at least ${minimum}; the device runs ${running}`;
  }
  return undefined;
}

export function preflightWave(
  wave: string,
  devices: readonly RolloutDevice[],
  version: string,
  published: readonly PublishedVersion[],
): WavePreflight {
  const result: WavePreflight = {
    wave,
    total: devices.length,
    alreadyTargeted: 0,
    toWrite: 0,
    refused: [],
    offline: [],
    failingHealth: [],
    unknownType: [],
  };
  for (const device of devices) {
    const done = runningVersion(device) === version;
    if (desiredVersion(device) === version) {
      result.alreadyTargeted++;
    } else {
      const why = writeRefusalOf(device, version, published);
      if (why !== undefined) result.refused.push({ name: device.name, why });
      else result.toWrite++;
      if (why === undefined && deviceTypeOf(device) === undefined) result.unknownType.push(device.name);
    }
    if (!done && !isOnline(device)) result.offline.push(device.name);
    const failing = failingChecksOf(device);
    if (failing.length > 0) result.failingHealth.push({ name: device.name, why: failing.join(', ') });
  }
  return result;
}
