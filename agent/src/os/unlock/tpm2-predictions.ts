import { z } from 'zod';
import { readJsonFile } from '@outpost/shared';
import type { Slot } from '@outpost/shared';

/**
 * The PCR 8 value of every boot path of every slot, measured at image build by booting each path once in QEMU
 * with swtpm (DESIGN.md: PCR 8 depends on the GRUB build, the boot path and the command line, not on kernel
 * bytes nor on the machine). Shipped with the image at /usr/lib/outpost/pcr8-predictions.json.
 */
export const DEFAULT_PREDICTIONS_FILE = '/usr/lib/outpost/pcr8-predictions.json';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** path name (normal, trial, fallback) → PCR 8 */
const slotPaths = z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), hex64);

export const predictionsSchema = z.object({
  version: z.literal(1),
  /** the PCR the table predicts (always 8: GRUB's commands and the kernel command line) */
  pcr: z.literal(8),
  slots: z.object({ A: slotPaths.optional(), B: slotPaths.optional() }),
});
export type Pcr8Predictions = z.infer<typeof predictionsSchema>;

export async function readPredictions(file: string): Promise<Pcr8Predictions> {
  const value = await readJsonFile(file);
  if (value === undefined) throw new Error(`${file} is missing: the image ships no PCR 8 prediction table`);
  const parsed = predictionsSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${file} is not a PCR 8 prediction table: ${parsed.error.message}`);
  return parsed.data;
}

/** The predicted PCR 8 of each boot path of `slot`, or undefined when the table has none. */
export function predictedPaths(table: Pcr8Predictions, slot: Slot): [string, string][] | undefined {
  const paths = table.slots[slot];
  if (paths === undefined) return undefined;
  const entries = Object.entries(paths).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? undefined : entries;
}
