import { Command, Option } from 'commander';
import { SLOTS } from '@outpost/shared';
import type { Slot } from '@outpost/shared';
import { createLogger } from '../../logging/logger.js';
import { readBootId } from '../../runtime-facts.js';
import {
  ENCRYPTED_DATA_CONFIG,
  UNLOCK_RUNTIME_DIR,
  encryptedDataUnlock,
  readEncryptedDataConfig,
} from './encrypted-data.js';

interface UnlockDataOptions {
  config: string;
  tcti?: string;
  runtimeDir: string;
  testOnly?: boolean;
  enrollWith?: string;
  slot?: Slot;
}

/**
 * `droplet unlock-data`: at boot, before the data partition's mount (the image's outpost-unlock-data.service).
 * Unseals the LUKS2 key with this boot's PCRs and opens the partition; exits 1 when the TPM does not release it
 * (a boot chain the policy does not accept): an unattended device has nobody to type the recovery key, so the
 * unit fails, the mount does not happen, and the agent reports `DiskUnlock=False/NotUnlocked`.
 * `--enroll-with KEY --slot S` enrols instead: a new key slot sealed to slot S's boot chains, opened by KEY.
 * Returns the exit code.
 */
export async function unlockDataCommand(argv: readonly string[]): Promise<number> {
  const command = new Command('droplet unlock-data')
    .description('open the encrypted data partition with the TPM-sealed key (run at boot), or enrol the TPM')
    .addOption(new Option('--config <file>', "the image's encrypted-data configuration").default(ENCRYPTED_DATA_CONFIG))
    .addOption(new Option('--tcti <tcti>', "tpm2-tools' TCTI (default device:/dev/tpmrm0)").env('DROPLET_TPM2_TCTI'))
    .addOption(new Option('--runtime-dir <dir>', 'tmpfs folder for the boot record').default(UNLOCK_RUNTIME_DIR))
    .option('--test-only', 'check that the key opens the partition, without opening it (cryptsetup --test-passphrase)')
    .option('--enroll-with <key file>', 'enrol: add a TPM-sealed key slot, authorised by this existing key')
    .addOption(new Option('--slot <slot>', 'with --enroll-with: the slot whose boot chains unlock').choices([...SLOTS]))
    .exitOverride();
  let opts: UnlockDataOptions;
  try {
    opts = command.parse(argv, { from: 'user' }).opts<UnlockDataOptions>();
  } catch (err) {
    return (err as { exitCode?: number }).exitCode ?? 2;
  }
  if ((opts.enrollWith === undefined) !== (opts.slot === undefined)) {
    process.stderr.write('droplet unlock-data: --enroll-with and --slot go together\n');
    return 2;
  }
  const logger = createLogger('info');
  try {
    const config = await readEncryptedDataConfig(opts.config);
    if (config === undefined) {
      logger.info(`${opts.config} does not exist: the data partition is not encrypted`);
      return 0;
    }
    const adapter = encryptedDataUnlock(config, {
      bootId: readBootId,
      runtimeDir: opts.runtimeDir,
      ...(opts.tcti === undefined ? {} : { tcti: opts.tcti }),
    });
    if (opts.enrollWith !== undefined && opts.slot !== undefined) {
      const binding = await adapter.enroll(
        opts.enrollWith,
        [opts.slot],
        `enrolled to the boot chains of slot ${opts.slot}`,
      );
      logger.info({ slots: binding.slots }, `enrolled the TPM to unlock ${config.device}`);
      return 0;
    }
    const started = process.hrtime.bigint();
    const result = await adapter.unlockAtBoot(opts.testOnly === true ? 'test' : { open: config.mapperName });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.unlocked) {
      logger.info({ ms: Math.round(ms) }, `the TPM unlocked ${config.device}`);
      return 0;
    }
    logger.error(
      { ms: Math.round(ms) },
      `the TPM did not unlock ${config.device} (this boot's chain is not one the policy accepts; the recovery key opens it): ${result.reason ?? ''}`,
    );
    return 1;
  } catch (err) {
    logger.error({ err }, 'cannot unlock the data partition');
    return 1;
  } finally {
    logger.flush();
  }
}
