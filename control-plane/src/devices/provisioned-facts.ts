import { z } from 'zod';
import { ID_RULES, semverString } from '@outpost/shared';
import type { Device } from '@outpost/shared';

/** What a device is known to be before its agent reports: its type and the OS version it runs. */
export interface ProvisionedFacts {
  /** a device type id (`x`, not `deviceTypes/x`) */
  deviceType?: string | undefined;
  osVersion?: string | undefined;
}

const deviceTypeId = z
  .string()
  .transform((type) => type.replace(/^deviceTypes\//, ''))
  .refine((id) => ID_RULES.generic.pattern.test(id), 'must be a device type id like qemu-x86_64 (or deviceTypes/{id})');

/** Body of `POST /v1/{device}:provision`. */
export const provisionRequestSchema = z.strictObject({
  deviceType: deviceTypeId.optional(),
  /** the OS version the device ships with */
  factoryVersion: semverString.optional(),
});

/**
 * The device with the provisioned facts as status.deviceInfo.deviceType and .osVersion, each only where the
 * device has reported none: its agent's own report is the truth, and replaces them when it comes.
 */
export function withProvisionedFacts(device: Device, facts: ProvisionedFacts): Device {
  const status = device.status ?? {};
  const info = status.deviceInfo ?? {};
  const added: { deviceType?: string; osVersion?: string } = {};
  if (facts.deviceType !== undefined && info.deviceType === undefined) added.deviceType = facts.deviceType;
  if (facts.osVersion !== undefined && info.osVersion === undefined) added.osVersion = facts.osVersion;
  if (Object.keys(added).length === 0) return device;
  return { ...device, status: { ...status, deviceInfo: { ...info, ...added } } };
}
