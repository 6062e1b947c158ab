import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileBackend } from '../../src/os/boot/file-backend.js';
import { simulatedBoot } from '../../src/os/boot/simulated-boot.js';
import { simulatedDevicePaths } from '../../src/os/boot/simulated-device.js';
import { simulatedTpm } from '../../src/os/unlock/simulated-tpm.js';
import { UnlockPrepareError } from '../../src/os/unlock/unlock-adapter.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** A simulated device, "encrypted" (sim-tpm/ present) unless told otherwise, booted once. */
async function newDevice(encrypted = true) {
  const root = await tempDir();
  const paths = simulatedDevicePaths(root);
  if (encrypted) await mkdir(join(root, 'sim-tpm'));
  const backend = fileBackend({ paths, slotSizeBytes: 1024 * 1024 });
  const boot = () => simulatedBoot(paths, { factoryVersion: '1.0.0' });
  await boot();
  const powerCycle = async () => {
    await rm(paths.volatileDir, { recursive: true, force: true });
    return boot();
  };
  const install = async (slot: 'A' | 'B', version: string, content: string) => {
    await backend.setSlotVersion(slot, undefined);
    await writeFile(join(paths.slotsDir, `${slot}.img`), content);
    await backend.setSlotVersion(slot, version);
  };
  let now = 1_000;
  const tpm = await simulatedTpm(root, paths, () => now++);
  return { root, paths, backend, tpm, powerCycle, install };
}

describe('simulated TPM of the file boot backend (files under {device_root}/sim-tpm/)', () => {
  it('is absent on a device whose data partition is not encrypted', async () => {
    expect((await newDevice(false)).tpm).toBeUndefined();
  });

  it('enrols the key to the booted slot at the first boot and unlocks it from then on', async () => {
    const { tpm, powerCycle } = await newDevice();
    expect(await tpm?.readBinding()).toEqual({ slots: [] });
    expect(await tpm?.unlockedThisBoot()).toBe(true);
    expect(await tpm?.readBinding()).toEqual({
      slots: ['A'],
      changedAtMs: 1_000,
      reason: 'enrolled at the first boot, to the boot chain of slot A',
    });
    await powerCycle();
    expect(await tpm?.unlockedThisBoot()).toBe(true);
    expect(tpm?.boundPcrs).toEqual([7, 8, 9]);
  });

  it('a slot rewritten after sealing does not unlock (its chain measures differently); re-sealing accepts it', async () => {
    const { tpm, backend, install, powerCycle } = await newDevice();
    await tpm?.unlockedThisBoot();
    await install('B', '1.1.0', 'kernel 1.1.0');
    await tpm?.seal(['A', 'B'], 'widened for the test');
    expect((await tpm?.readBinding())?.slots).toEqual(['A', 'B']);
    // B is overwritten (a tampered or different kernel) without a new seal
    await install('B', '1.1.0', 'a tampered kernel');
    expect((await tpm?.readBinding())?.slots).toEqual(['A']);
    await backend.tryOnce('B');
    const { boot } = await powerCycle();
    expect(boot.slot).toBe('B');
    expect(await tpm?.unlockedThisBoot()).toBe(false);
  });

  it('what this boot unlocked is settled once per boot: a later seal does not change it', async () => {
    const { tpm, install, backend, powerCycle } = await newDevice();
    await tpm?.unlockedThisBoot();
    await install('B', '1.1.0', 'kernel 1.1.0');
    await backend.tryOnce('B');
    await powerCycle();
    expect(await tpm?.unlockedThisBoot()).toBe(false);
    await tpm?.seal(['A', 'B'], 'accepts the running slot now');
    expect(await tpm?.unlockedThisBoot()).toBe(false);
  });

  it('refuses to seal, keeping the old policy, in lockout or when a slot holds no verified OS', async () => {
    const { root, tpm, install } = await newDevice();
    await tpm?.unlockedThisBoot();
    await expect(tpm?.seal(['A', 'B'], 'B is empty')).rejects.toThrow(
      new UnlockPrepareError('the boot chain of slot B cannot be predicted: the slot holds no verified OS'),
    );
    await install('B', '1.1.0', 'kernel 1.1.0');
    await writeFile(join(root, 'sim-tpm', 'lockout'), '');
    await expect(tpm?.seal(['A', 'B'], 'locked out')).rejects.toThrow(/dictionary-attack lockout/);
    expect(await tpm?.readBinding()).toMatchObject({ slots: ['A'] });
  });

  it('adds recovery key slots only at a boot the TPM unlocked, numbering them after the TPM key slot 0', async () => {
    const { root, tpm, install, backend, powerCycle } = await newDevice();
    await tpm?.unlockedThisBoot();
    const keyFile = join(root, 'recovery-key');
    await writeFile(keyFile, 'cbdefghi-jklnrtuv');
    expect(await tpm?.addRecoveryKey(keyFile)).toBe(1);
    expect(await tpm?.addRecoveryKey(keyFile)).toBe(2);
    await writeFile(keyFile, '');
    await expect(tpm?.addRecoveryKey(keyFile)).rejects.toThrow(/is empty/);
    await install('B', '1.1.0', 'kernel 1.1.0');
    await backend.tryOnce('B');
    await powerCycle();
    await writeFile(keyFile, 'cbdefghi-jklnrtuv');
    await expect(tpm?.addRecoveryKey(keyFile)).rejects.toThrow(UnlockPrepareError);
    expect(Object.keys(JSON.parse(await readFile(join(root, 'sim-tpm', 'keyslots.json'), 'utf8')))).toEqual(['1', '2']);
  });
});
