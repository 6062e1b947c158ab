import { labelsContain } from '../query/collection-contains.js';

/** One entry of `status.conditions`, as much of it as a rollout reads. */
export interface RolloutCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/**
 * The part of a device record a rollout reads: what the watch's field mask (ROLLOUT_FIELD_MASK) selects. Any
 * Device of the API fits it.
 */
export interface RolloutDevice {
  name: string;
  metadata?: { labels?: Record<string, string> };
  spec?: { osVersion?: string };
  status?: {
    deviceInfo?: { osVersion?: string; deviceType?: string; managedFeatures?: { os?: boolean } };
    connectionStatus?: string;
    conditions?: readonly RolloutCondition[];
    osUpdate?: { slots?: Record<string, { version?: string }> };
  };
}

/**
 * The fields a rollout follows: the two version fields, the conditions (OSReady and the health checks),
 * the connection status, and what places a device in a wave and checks a write before it is made.
 */
export const ROLLOUT_FIELD_MASK: readonly string[] = [
  'metadata.labels',
  'spec.osVersion',
  'status.deviceInfo.osVersion',
  'status.deviceInfo.deviceType',
  'status.deviceInfo.managedFeatures',
  'status.connectionStatus',
  'status.conditions',
  'status.osUpdate.slots',
];

export const HEALTH_CONDITION_PREFIX = 'Healthy/';

export const desiredVersion = (device: RolloutDevice): string | undefined => device.spec?.osVersion;
export const runningVersion = (device: RolloutDevice): string | undefined => device.status?.deviceInfo?.osVersion;
export const isOnline = (device: RolloutDevice): boolean => device.status?.connectionStatus === 'CONNECTED';

export const osReadyOf = (device: RolloutDevice): RolloutCondition | undefined =>
  device.status?.conditions?.find((c) => c.type === 'OSReady');

export const healthConditionsOf = (device: RolloutDevice): RolloutCondition[] =>
  (device.status?.conditions ?? []).filter((c) => c.type.startsWith(HEALTH_CONDITION_PREFIX));

/** `web (connection refused)` for each health check that fails now. */
export const failingChecksOf = (device: RolloutDevice): string[] =>
  healthConditionsOf(device)
    .filter((c) => c.status === 'False')
    .map((c) => `${c.type.slice(HEALTH_CONDITION_PREFIX.length)} (${c.message || c.reason || 'failing'})`);

/** The device type without its collection: `simulated` for `deviceTypes/simulated` or `simulated`. */
export function deviceTypeOf(device: RolloutDevice): string | undefined {
  const type = device.status?.deviceInfo?.deviceType;
  if (!type) return undefined;
  return type.startsWith('deviceTypes/') ? type.slice('deviceTypes/'.length) : type;
}

/** The versions in the device's slots (the running one and the one retained for a rollback). */
export const slotVersionsOf = (device: RolloutDevice): string[] =>
  Object.values(device.status?.osUpdate?.slots ?? {})
    .map((slot) => slot.version)
    .filter((v): v is string => typeof v === 'string');

export const hasLabel = (device: RolloutDevice, label: string): boolean =>
  labelsContain(device.metadata?.labels ?? {}, label);
