import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '@outpost/shared';
import { execFileCommands } from '../../config-apply/command-runner.js';
import { DEFAULT_PREDICTIONS_FILE } from './tpm2-predictions.js';
import { DEFAULT_PRIMARY_HANDLE, DEFAULT_TCTI, tpm2Unlock } from './tpm2-adapter.js';
import type { Tpm2Unlock } from './tpm2-adapter.js';

/**
 * An image whose data partition is LUKS2 says so in this file (absent: the data partition is not encrypted, and
 * the agent leaves encryption alone). Read by the boot unit (`droplet unlock-data`) and by the agent.
 */
export const ENCRYPTED_DATA_CONFIG = '/etc/outpost/encrypted-data.json';
/** tmpfs: this boot's unlock result and the key while it is re-sealed */
export const UNLOCK_RUNTIME_DIR = '/run/outpost';

export const encryptedDataSchema = z
  .object({
    /** the LUKS2 data partition, e.g. /dev/disk/by-partlabel/data */
    device: z.string().startsWith('/'),
    /** the device-mapper name it is opened as (/dev/mapper/<name>, mounted at the device root) */
    mapperName: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    /** PCRs read from the TPM when sealing, besides the predicted PCR 8 (7, and 4 where GRUB is only re-sealed) */
    fixedPcrs: z.array(z.number().int().min(0).max(7)).min(1).max(4).optional(),
    primaryHandle: z
      .string()
      .regex(/^0x81[0-9a-f]{6}$/)
      .optional(),
    predictionsFile: z.string().startsWith('/').optional(),
  })
  .strict();
export type EncryptedDataConfig = z.infer<typeof encryptedDataSchema>;

export async function readEncryptedDataConfig(file: string): Promise<EncryptedDataConfig | undefined> {
  const value = await readJsonFile(file);
  if (value === undefined) return undefined;
  const parsed = encryptedDataSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${file} is not an encrypted-data configuration: ${parsed.error.message}`);
  return parsed.data;
}

export interface EncryptedDataSettings {
  bootId: () => Promise<string>;
  /** tpm2-tools' TCTI (default device:/dev/tpmrm0) */
  tcti?: string;
  runtimeDir?: string;
}

/** The real adapter for the partition `config` names. */
export function encryptedDataUnlock(config: EncryptedDataConfig, settings: EncryptedDataSettings): Tpm2Unlock {
  const runtimeDir = settings.runtimeDir ?? UNLOCK_RUNTIME_DIR;
  return tpm2Unlock({
    // cryptsetup is in /usr/sbin, which the agent's environment may lack
    commands: execFileCommands({ env: { PATH: `${process.env['PATH'] ?? '/usr/bin:/bin'}:/usr/sbin:/sbin` } }),
    device: config.device,
    tcti: settings.tcti ?? DEFAULT_TCTI,
    primaryHandle: config.primaryHandle ?? DEFAULT_PRIMARY_HANDLE,
    fixedPcrs: config.fixedPcrs ?? [7],
    predictionsFile: config.predictionsFile ?? DEFAULT_PREDICTIONS_FILE,
    runtimeDir,
    bootRecordFile: join(runtimeDir, 'unlock.json'),
    bootId: settings.bootId,
  });
}
