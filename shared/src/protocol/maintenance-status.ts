import { z } from 'zod';
import { label } from './bounds.js';

/** At most this many update locks are reported. */
export const MAX_REPORTED_LOCKS = 64;

/** An update lock held on the device: a lease that defers upgrade slot switches and reboots until it expires. */
export const heldLockSchema = z.object({
  name: label.min(1),
  /** RFC 3339 */
  expiresAt: z.iso.datetime({ offset: true }),
});

/**
 * `status.maintenance`: whether an upgrade may switch slots and reboot now. Without maintenance windows the
 * window is always open and no times are given. Times are RFC 3339 (a next start may lie weeks ahead).
 */
export const maintenanceStatusSchema = z.object({
  /** how many maintenance windows the device has (0: an upgrade may switch and reboot at any time) */
  windows: z.int().min(0).max(1024),
  windowOpen: z.boolean(),
  /** when the open window closes */
  windowClosesAt: z.iso.datetime({ offset: true }).optional(),
  /** when the next window opens */
  nextWindowStart: z.iso.datetime({ offset: true }).optional(),
  /** the update locks held now (expired ones are not) */
  heldLocks: z.array(heldLockSchema).max(MAX_REPORTED_LOCKS),
});
export type MaintenanceStatus = z.infer<typeof maintenanceStatusSchema>;
export type HeldLock = z.infer<typeof heldLockSchema>;
