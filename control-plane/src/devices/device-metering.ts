import { DEVICE_PATTERN } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import type { MeteredPlace, MeteredResource } from '../limits/metering.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { where } from '../resources/resource-query.js';

/** The service whose plans meter devices, and the resource its Limits count. */
export const DEVICES_SERVICE = 'services/devices.outpost';
export const DEVICES_RESOURCE = `${DEVICES_SERVICE}/resources/devices`;

/** Devices per region of the plans a fresh control plane starts with (administrators edit them as plans). */
export const DEFAULT_DEVICE_LIMITS = { service: 1_000_000_000, organization: 100_000, project: 1_000 } as const;

/**
 * Devices as a metered resource: a device counts in its project's Limit in its region. `devices()` is the
 * registered handle (the rules limits returns are registered with it, so it is known only afterwards).
 */
export function deviceMeter(devices: () => ResourceHandle<Device>): MeteredResource {
  return {
    service: DEVICES_SERVICE,
    serviceDisplayName: 'Devices',
    resource: DEVICES_RESOURCE,
    noun: 'devices',
    placeOf,
    countIn: (place) => devices().count({ where: [where.parent(`${place.project}/regions/${place.region}`)] }),
    defaultLimits: DEFAULT_DEVICE_LIMITS,
  };
}

function placeOf(device: string): MeteredPlace | undefined {
  const ids = DEVICE_PATTERN.parse(device);
  if (!ids?.['project'] || !ids['region']) return undefined;
  return { project: `projects/${ids['project']}`, region: ids['region'] };
}
