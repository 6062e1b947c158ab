import { z } from 'zod';
import { deviceTime, message } from './bounds.js';
import { SLOTS } from './os-update.js';

/** The TPM PCRs a binding may name (SHA-256 bank, 0..23). */
export const pcrIndexSchema = z.int().min(0).max(23);

/**
 * `status.diskUnlock`: how the encrypted data partition's automatic unlock is bound, on a device whose OS the
 * agent manages and whose data partition is encrypted (absent otherwise; the DiskUnlock condition says why).
 */
export const diskUnlockStatusSchema = z.object({
  /** which adapter keeps the binding: `simulated-tpm` (file boot backend) or `tpm2` */
  adapter: z.enum(['simulated-tpm', 'tpm2']),
  /** the PCRs the unlock policy is bound to */
  boundPcrs: z.array(pcrIndexSchema).max(24),
  /** the slots whose boot chain the policy accepts now (two only around a slot switch) */
  slotsAccepted: z.array(z.enum(SLOTS)).max(2),
  /** whether this boot's measured chain is one the policy accepts (false: the key did not unlock it) */
  unlockedThisBoot: z.boolean(),
  /** the last change of the policy: RFC 3339 time and why */
  lastChange: z.object({ time: deviceTime, reason: message }).optional(),
});
export type DiskUnlockStatus = z.infer<typeof diskUnlockStatusSchema>;
