import { z } from 'zod';
import { boundedRecord, label, message, text } from './bounds.js';

export const SLOTS = ['A', 'B'] as const;
export type Slot = (typeof SLOTS)[number];

/**
 * The OS image a device should run, resolved by the control plane from `spec.osVersion` and the device's
 * reported type. The agent downloads `url` (relative to the server, authenticated with its credential,
 * HTTP Range supported), checks `sha256` and `size`, and verifies `signature`: ed25519 over the 32 raw bytes
 * of the image's SHA-256 digest, base64, against the PEM public keys in {device_root}/config/trust/.
 */
export const osImageSchema = z.object({
  version: z.string().min(1),
  deviceType: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.int().positive(),
  /** absent or empty: unsigned, which the agent refuses (OSReady=False/Failed) */
  signature: z.string().optional(),
  url: z.string().min(1),
  /** the published version's minimumPreviousVersion: the agent refuses the image while it runs an older one */
  minimumPreviousVersion: z.string().min(1).optional(),
});
export type OsImage = z.infer<typeof osImageSchema>;

/** What the agent reports of its A/B slots and boot state (`status.osUpdate`), for operators and tests. */
export const osUpdateStatusSchema = z.object({
  bootBackend: label,
  /** the slot this boot runs from */
  runningSlot: z.enum(SLOTS).optional(),
  /** the committed slot the bootloader returns to */
  activeSlot: z.enum(SLOTS).optional(),
  /** the slot to try once on the next boot, if any */
  trySlot: z.enum(SLOTS).optional(),
  /** a slot the bootloader gave up on */
  lastFailed: z.enum(SLOTS).optional(),
  /** version installed in each slot, as far as known */
  slots: boundedRecord(z.object({ version: label.optional() }), 16).optional(),
  /** the boot environment as the bootloader sees it (grubenv / U-Boot variables / file state) */
  bootEnv: boundedRecord(text, 1024).optional(),
  /** ids of the health checks failing now (`Healthy/<id>` False): a trial boot does not commit while one does */
  failingHealthChecks: z.array(label).max(256).optional(),
  /** the version whose trial the bootloader gave up on (until spec.osVersion changes), why, and which checks failed */
  rolledBack: z
    .object({
      version: label,
      slot: z.enum(SLOTS),
      message,
      failingHealthChecks: z.array(label).max(256).optional(),
    })
    .optional(),
});
export type OsUpdateStatus = z.infer<typeof osUpdateStatusSchema>;
