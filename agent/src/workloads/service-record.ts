import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { readJsonFile, writeJsonFileAtomic } from '@outpost/shared';

/**
 * What the agent writes down about a detached service so that the next agent can adopt it: its wrapper (the
 * leader of the service's process group, the one the agent signals) and the service's own process, each named by
 * pid and start time (pids are reused), and the boot they belong to.
 */
export interface ServiceRecord {
  bootId: string;
  wrapperPid: number;
  wrapperStartTime: string;
  servicePid: number;
  /** ISO time the service was started */
  startedAt: string;
  /** a digest of how it was launched: a service whose pod changed while the agent was away is not adopted */
  launchDigest: string;
}

const serviceRecordSchema = z.object({
  bootId: z.string().min(1),
  wrapperPid: z.number().int().positive(),
  wrapperStartTime: z.string().regex(/^\d+$/),
  servicePid: z.number().int().positive(),
  startedAt: z.string().datetime(),
  launchDigest: z.string().min(1),
});

/** The record at `path`, or undefined when there is none or it is unreadable (then it is not ours to trust). */
export async function readServiceRecord(path: string): Promise<ServiceRecord | undefined> {
  const raw = await readJsonFile(path).catch(() => undefined);
  const parsed = serviceRecordSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Written only by the agent, readable only by it: the pids in it are signalled. */
export const writeServiceRecord = (path: string, record: ServiceRecord): Promise<void> =>
  writeJsonFileAtomic(path, record, 0o600);

export const removeServiceRecord = (path: string): Promise<void> => rm(path, { force: true });
