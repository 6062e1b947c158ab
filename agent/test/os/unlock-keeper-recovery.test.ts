import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReportedStatus } from '@outpost/shared';
import { fileBackend } from '../../src/os/boot/file-backend.js';
import { simulatedBoot } from '../../src/os/boot/simulated-boot.js';
import { simulatedDevicePaths } from '../../src/os/boot/simulated-device.js';
import { simulatedTpm } from '../../src/os/unlock/simulated-tpm.js';
import { DiskUnlockKeeper } from '../../src/os/unlock/unlock-keeper.js';
import type { ConditionUpdate } from '../../src/metrics/conditions.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** The keeper over the simulated TPM of an "encrypted" file-backend device, with a recovery key left for it. */
async function deviceWithRecoveryKey() {
  const root = await tempDir();
  const paths = simulatedDevicePaths(root);
  await mkdir(join(root, 'sim-tpm'));
  const boot = () => simulatedBoot(paths, { factoryVersion: '1.0.0' });
  await boot();
  const tpm = await simulatedTpm(root, paths);
  if (tpm === undefined) throw new Error('the simulated TPM is missing');
  const recoveryKeyFile = join(root, 'config', 'recovery-key');
  await mkdir(join(root, 'config'));
  await writeFile(recoveryKeyFile, 'cbdefghi-jklnrtuv');
  const { logger, messages } = capturedLogger();
  const conditions: ConditionUpdate[] = [];
  const keeper = () =>
    new DiskUnlockKeeper({
      adapter: tpm,
      reporter: { report: (_partial: ReportedStatus) => {}, setCondition: (c) => conditions.push(c) },
      logger,
      recoveryKeyFile,
    });
  const powerCycle = async () => {
    await rm(paths.volatileDir, { recursive: true, force: true });
    return boot();
  };
  return { root, paths, tpm, keeper, recoveryKeyFile, messages, powerCycle };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('DiskUnlockKeeper: the recovery key left by provisioning', () => {
  it('is enrolled at the first reconcile, then its copy is removed; later reconciles do not look again', async () => {
    const { root, tpm, keeper, recoveryKeyFile, messages } = await deviceWithRecoveryKey();
    await tpm.unlockedThisBoot();
    const guard = keeper();
    await guard.reconcile({ runningSlot: 'A', activeSlot: 'A' }, undefined);
    expect(await exists(recoveryKeyFile)).toBe(false);
    expect(Object.keys(JSON.parse(await readFile(join(root, 'sim-tpm', 'keyslots.json'), 'utf8')))).toEqual(['1']);
    expect(messages()).toContain('enrolled the recovery key made at provisioning; removed its copy');
    await writeFile(recoveryKeyFile, 'another');
    await guard.reconcile({ runningSlot: 'A', activeSlot: 'A' }, undefined);
    expect(await exists(recoveryKeyFile), 'looked for once per start').toBe(true);
  });

  it('keeps the copy, and says so, when the TPM did not unlock this boot (the next start retries)', async () => {
    const { root, paths, keeper, recoveryKeyFile, messages, powerCycle, tpm } = await deviceWithRecoveryKey();
    await tpm.unlockedThisBoot();
    // slot B is tried without the policy accepting it: that boot does not unlock
    const backend = fileBackend({ paths, slotSizeBytes: 1024 * 1024 });
    await backend.setSlotVersion('B', undefined);
    await writeFile(join(paths.slotsDir, 'B.img'), 'kernel 1.1.0');
    await backend.setSlotVersion('B', '1.1.0');
    await backend.tryOnce('B');
    await powerCycle();
    expect(await tpm.unlockedThisBoot()).toBe(false);
    await keeper().reconcile({ runningSlot: 'B', activeSlot: 'A', trySlot: 'B' }, undefined);
    expect(await readFile(recoveryKeyFile, 'utf8')).toBe('cbdefghi-jklnrtuv');
    expect(await exists(join(root, 'sim-tpm', 'keyslots.json'))).toBe(false);
    expect(
      messages().some((m) => m.includes('cannot enrol the recovery key') && m.includes('retried at the next start')),
    ).toBe(true);
  });
});
