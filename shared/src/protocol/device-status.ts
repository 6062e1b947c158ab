import { z } from 'zod';
import { deviceTime, label, message } from './bounds.js';
import { configurationStatusSchema } from './configuration-status.js';
import { diskUnlockStatusSchema } from './disk-unlock-status.js';
import { reportedDeviceInfoSchema } from './device-info.js';
import { HOOK_NAMES, hookRunSchema } from './hooks.js';
import { maintenanceStatusSchema } from './maintenance-status.js';
import { osUpdateStatusSchema } from './os-update.js';

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** One entry of `status.conditions` (Kubernetes NodeCondition style; design.md "Conditions"). */
export const conditionSchema = z.object({
  /** `OSReady`, `Healthy/<check id>`, ... */
  type: label.min(1),
  status: z.enum(CONDITION_STATUSES),
  reason: label,
  message,
  /** RFC 3339; changes only when `status` changes */
  lastTransitionTime: deviceTime,
});

export const addressSchema = z.object({
  address: label.min(1),
  type: z.literal('InternalIP'),
});

/**
 * The part of `status` a device reports. Each member present replaces the stored member of the same
 * name, except `deviceInfo` and `configuration`, which are merged one level deep (see mergeReportedStatus). Members absent
 * are left unchanged. What the control plane derives (connectionStatus and its time, agent, metrics,
 * deviceInfo.usage) is not part of it: a device cannot write those.
 */
export const reportedStatusSchema = z.object({
  deviceInfo: reportedDeviceInfoSchema.optional(),
  /** every condition the agent owns, complete */
  conditions: z.array(conditionSchema).max(4096).optional(),
  addresses: z.array(addressSchema).max(4096).optional(),
  osUpdate: osUpdateStatusSchema.optional(),
  /** the latest run of each hook that ran (on-boot, after-droplet, on-shutdown) */
  hooks: z.array(hookRunSchema).max(HOOK_NAMES.length).optional(),
  /** the configuration parts the agent applies (network, ssh, proxy, logging); merged one level deep */
  configuration: configurationStatusSchema.optional(),
  /** the maintenance window and the held update locks */
  maintenance: maintenanceStatusSchema.optional(),
  /** the TPM binding of the encrypted data partition's automatic unlock */
  diskUnlock: diskUnlockStatusSchema.optional(),
});

export type Condition = z.infer<typeof conditionSchema>;
export type Address = z.infer<typeof addressSchema>;
export type ReportedStatus = z.infer<typeof reportedStatusSchema>;

/**
 * Folds a reported status into a stored one: deviceInfo merged one level deep (so `usage`, which the
 * server keeps from metrics and a report cannot carry, survives an agent's deviceInfo), configuration merged
 * one level deep (each part reports on its own), other reported members replace.
 */
export function mergeReportedStatus<S extends ReportedStatus>(stored: S, reported: ReportedStatus): S {
  const merged: S = { ...stored };
  if (reported.deviceInfo !== undefined) merged.deviceInfo = { ...stored.deviceInfo, ...reported.deviceInfo };
  if (reported.conditions !== undefined) merged.conditions = reported.conditions;
  if (reported.addresses !== undefined) merged.addresses = reported.addresses;
  if (reported.osUpdate !== undefined) merged.osUpdate = reported.osUpdate;
  if (reported.hooks !== undefined) merged.hooks = reported.hooks;
  if (reported.maintenance !== undefined) merged.maintenance = reported.maintenance;
  if (reported.diskUnlock !== undefined) merged.diskUnlock = reported.diskUnlock;
  if (reported.configuration !== undefined) {
    merged.configuration = { ...stored.configuration, ...reported.configuration };
  }
  return merged;
}
