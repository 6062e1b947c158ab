import { z } from 'zod';
import { SLOTS, osImageSchema, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';

const slotSchema = z.enum(SLOTS);

export const OPERATION_PHASES = ['downloading', 'verified', 'switching', 'abandoning'] as const;
export type OperationPhase = (typeof OPERATION_PHASES)[number];

/** The image of an operation; the signature may be missing (an unsigned image is refused at verification). */
const operationImageSchema = osImageSchema.extend({ signature: z.string().optional() });
export type OperationImage = z.infer<typeof operationImageSchema>;

const operationSchema = z.object({
  /** the version being installed */
  version: z.string().min(1),
  /** the spare slot it goes into */
  slot: slotSchema,
  /**
   * downloading → (image written, hash and signature checked) verified → (try requested) switching →
   * reboot → trial boot → commit. `abandoning`: a trial boot is being given up on purpose.
   */
  phase: z.enum(OPERATION_PHASES),
  /** absent when switching to a retained slot: nothing to download */
  image: operationImageSchema.optional(),
  /** bytes of the image durably written into the slot (resumes from here after a restart) */
  bytesWritten: z.int().nonnegative(),
  /** the boot in which the try was requested: another boot id means the device rebooted since */
  switchBootId: z.string().optional(),
  /** reboots done for this operation, so a bootloader that never takes the try cannot loop forever */
  reboots: z.int().nonnegative(),
  /** why its trial boot gave up without a commit (kept across the reboot into the fallback slot) */
  notCommitted: z.object({ reason: z.string(), failingHealthChecks: z.array(z.string()) }).optional(),
});
export type OsOperation = z.infer<typeof operationSchema>;

const slotRecordSchema = z.object({
  version: z.string().optional(),
  /** committed (booted good) since it was written: a rollback target */
  good: z.boolean(),
});
export type SlotRecord = z.infer<typeof slotRecordSchema>;

const progressSchema = z.object({
  /** what the agent knows of each slot */
  slots: z.object({ A: slotRecordSchema.optional(), B: slotRecordSchema.optional() }),
  operation: operationSchema.optional(),
  /** a version whose trial boot failed: not retried until spec.osVersion changes */
  rolledBack: z
    .object({
      version: z.string(),
      slot: slotSchema,
      message: z.string(),
      /** the health checks whose failure kept the trial boot from committing */
      failingHealthChecks: z.array(z.string()).optional(),
    })
    .optional(),
  /** an artifact that could not be installed (bad hash, signature, size, space): not retried until it changes */
  failed: z.object({ version: z.string(), sha256: z.string().optional(), message: z.string() }).optional(),
  /** the spec.osVersion last seen ('' for none), to notice when it changes */
  desiredVersion: z.string().optional(),
});
export type OsProgress = z.infer<typeof progressSchema>;

export const emptyProgress = (): OsProgress => ({ slots: {} });

/** {device_root}/data/os-update.json, replaced atomically at every step of an upgrade. */
export interface OsProgressStore {
  read(): Promise<OsProgress>;
  write(progress: OsProgress): Promise<void>;
}

export function osProgressStore(path: string, onUnreadable?: (problem: string) => void): OsProgressStore {
  return {
    async read() {
      let value: unknown;
      try {
        value = await readJsonFile(path);
      } catch (err) {
        onUnreadable?.(err instanceof Error ? err.message : String(err));
        return emptyProgress();
      }
      if (value === undefined) return emptyProgress();
      const parsed = progressSchema.safeParse(value);
      if (parsed.success) return parsed.data;
      onUnreadable?.(`${path}: ${parsed.error.message}`);
      return emptyProgress();
    },
    write: (progress) => writeJsonFileAtomic(path, progress),
  };
}
