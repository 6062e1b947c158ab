import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Condition, ReportedStatus } from '@outpost/shared';
import { PANIC_MARKER } from '../../src/os/boot/simulated-boot.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { runningSlotVersion } from './helpers/device-checks.js';
import { provisionSimulatedDevice, startDropletProcess } from './helpers/droplet-process.js';
import type { DropletProcess } from './helpers/droplet-process.js';
import { FakeControlPlane } from './helpers/fake-control-plane.js';
import { startInProcessDevice } from './helpers/in-process-device.js';
import type { InProcessDevice } from './helpers/in-process-device.js';
import { signingKey, testImage } from './helpers/os-images.js';

const tempDir = useTempDirs();
const running: DropletProcess[] = [];
const inProcess: InProcessDevice[] = [];
const inProcessRoots: string[] = [];
const planes: FakeControlPlane[] = [];
afterEach(async () => {
  // each child is gone before its folder is removed (a live agent still writes into it)
  await Promise.all(
    running.splice(0).map(async (droplet) => {
      droplet.child.kill('SIGKILL');
      await droplet.exit;
    }),
  );
  await Promise.all(inProcess.splice(0).map((device) => device.stop()));
  // an in-process agent may still finish a configuration write just after it stopped: retry the removal
  await Promise.all(
    inProcessRoots.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })),
  );
  await Promise.all(planes.splice(0).map((plane) => plane.close()));
});

const key = signingKey();
const KiB = 1024;

/** A provisioned simulated device whose data partition is "encrypted" (sim-tpm/ present). */
async function encryptedDevice() {
  const plane = await FakeControlPlane.start();
  planes.push(plane);
  const root = await tempDir();
  await provisionSimulatedDevice(root, plane.url, key);
  await mkdir(join(root, 'sim-tpm'));
  const start = (env: Record<string, string> = {}) => {
    const droplet = startDropletProcess(root, ['--commit-timeout', '20'], env);
    running.push(droplet);
    return droplet;
  };
  return { plane, root, start };
}

const diskUnlockOf = (status: ReportedStatus): Condition | undefined =>
  status.conditions?.find((c) => c.type === 'DiskUnlock');

/** Converged on `version` with the policy accepting exactly `slots`, and this boot unlocked. */
const convergedAndBound =
  (version: string, slots: string[]) => (status: ReportedStatus, osReady: Condition | undefined) =>
    status.deviceInfo?.osVersion === version &&
    osReady?.reason === 'Converged' &&
    status.diskUnlock?.unlockedThisBoot === true &&
    JSON.stringify(status.diskUnlock.slotsAccepted) === JSON.stringify(slots);

/** The slots the sealed policy file names (what survives a power cut). */
async function sealedSlots(root: string): Promise<string[]> {
  const policy = JSON.parse(await readFile(join(root, 'sim-tpm', 'policy.json'), 'utf8')) as {
    accepted: Record<string, string>;
  };
  return Object.keys(policy.accepted).sort();
}

describe('DiskUnlock: the TPM unlock policy follows A/B upgrades (simulated TPM, real child process)', () => {
  it('widens for the trial, narrows after the commit, and keeps the retained slot unlocking through a rollback and a fallback', async () => {
    const { plane, root, start } = await encryptedDevice();
    const droplet = start();
    await plane.waitForStatus('1.0.0 bound to slot A', convergedAndBound('1.0.0', ['A']));
    expect(plane.status.diskUnlock).toMatchObject({
      adapter: 'simulated-tpm',
      boundPcrs: [7, 8, 9],
      lastChange: { reason: 'enrolled at the first boot, to the boot chain of slot A' },
    });
    expect(diskUnlockOf(plane.status)).toMatchObject({ status: 'True', reason: 'Bound' });

    const v110 = testImage('1.1.0', 200 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForStatus('1.1.0 bound to slot B', convergedAndBound('1.1.0', ['B']), 40_000);
    // the status flushed before the reboot into the trial showed the widened policy
    expect(plane.statuses.some((s) => s.osUpdate?.trySlot === 'B' && s.diskUnlock?.slotsAccepted.length === 2)).toBe(
      true,
    );
    expect(plane.status.diskUnlock?.lastChange?.reason).toBe(
      'slot B is the committed slot: only its boot chain unlocks',
    );

    // rollback to 1.0.0, retained in A: widened to A and B for the switch, then only A
    const seen = plane.statuses.length;
    plane.setOsVersion('1.0.0');
    await plane.waitForStatus('1.0.0 bound to slot A', convergedAndBound('1.0.0', ['A']), 40_000);
    expect(
      plane.statuses.slice(seen).some((s) => s.osUpdate?.trySlot === 'A' && s.diskUnlock?.slotsAccepted.length === 2),
    ).toBe(true);

    // back on 1.1.0 in B (retained, no download), for the fallback below
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForStatus('1.1.0 bound to slot B again', convergedAndBound('1.1.0', ['B']), 40_000);

    // 1.2.0 panics in slot A: the bootloader falls back to B, which still unlocks; then only B is accepted
    const v120 = testImage('1.2.0', 100 * KiB, key, PANIC_MARKER);
    plane.publish(v120.image, v120.content);
    plane.setOsVersion('1.2.0', v120.image);
    await plane.waitForOsReady('RolledBack', undefined, 40_000);
    await plane.waitForStatus(
      'B unlocked and alone accepted',
      (status) => JSON.stringify(status.diskUnlock?.slotsAccepted) === JSON.stringify(['B']),
    );
    expect(plane.status.diskUnlock?.unlockedThisBoot).toBe(true);
    expect(await runningSlotVersion(root)).toBe('1.1.0');
    expect(droplet.output()).toContain('simulated bootloader: slot A (trial=1) does not boot: kernel panic');
  }, 120_000);

  it('a power cut between widening and the switch: the restarted agent switches, unlocks the trial, narrows', async () => {
    const { plane, root, start } = await encryptedDevice();
    const first = start({ OUTPOST_TEST_POWER_CUT_AT: 'switch-persisted' });
    const v110 = testImage('1.1.0', 100 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    expect((await first.exit).signal, first.output()).toBe('SIGKILL');
    expect(await sealedSlots(root)).toEqual(['A', 'B']);

    start();
    await plane.waitForStatus('1.1.0 bound to slot B', convergedAndBound('1.1.0', ['B']), 40_000);
    expect(await sealedSlots(root)).toEqual(['B']);
  }, 90_000);

  it('a power cut between the commit and the narrowing: the next start narrows once', async () => {
    const { plane, root, start } = await encryptedDevice();
    const first = start({ OUTPOST_TEST_POWER_CUT_AT: 'committed' });
    const v110 = testImage('1.1.0', 100 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    expect((await first.exit).signal, first.output()).toBe('SIGKILL');
    expect(await sealedSlots(root)).toEqual(['A', 'B']);

    const second = start();
    await plane.waitForStatus('1.1.0 bound to slot B', convergedAndBound('1.1.0', ['B']), 40_000);
    expect(await sealedSlots(root)).toEqual(['B']);
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    const sealings = (output: string) => output.split('\n').filter((l) => l.includes('sealed the TPM unlock policy'));
    expect(sealings(second.output())).toHaveLength(1);
    const seen = plane.statuses.length;
    const third = start();
    // the agent reconciles the policy before it plans: a new status with OSReady planned comes after it
    await plane.waitForStatus('started again', () =>
      plane.statuses
        .slice(seen)
        .some((s) => s.diskUnlock !== undefined && s.conditions?.some((c) => c.reason === 'Converged')),
    );
    third.child.kill('SIGTERM');
    await third.exit;
    expect(sealings(third.output())).toEqual([]); // nothing left to narrow
  }, 90_000);

  it('refuses the switch (OSReady Failed naming the reason) when the TPM cannot be prepared', async () => {
    const { plane, root, start } = await encryptedDevice();
    const droplet = start();
    await plane.waitForStatus('1.0.0 bound to slot A', convergedAndBound('1.0.0', ['A']));
    await writeFile(join(root, 'sim-tpm', 'lockout'), '');
    const v110 = testImage('1.1.0', 100 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForOsReady(
      'Failed',
      /^refused to switch to 1\.1\.0 in slot B: the TPM cannot be prepared to unlock the data partition with slot B: the TPM refuses to seal: it is in dictionary-attack lockout$/,
      40_000,
    );
    expect(plane.status.osUpdate).toMatchObject({ runningSlot: 'A', activeSlot: 'A', bootEnv: { try_slot: '' } });
    expect(await sealedSlots(root)).toEqual(['A']);
    expect(new Set(plane.hellos.map((h) => h.bootId)).size).toBe(1); // no reboot
    expect(droplet.child.exitCode).toBeNull();
  }, 90_000);

  it('with the none backend (customer Linux): DiskUnlock=True/Unsupported, no status.diskUnlock', async () => {
    const plane = await FakeControlPlane.start();
    planes.push(plane);
    const root = await mkdtemp(join(tmpdir(), 'droplet-test-'));
    inProcessRoots.push(root);
    await mkdir(join(root, 'sim-tpm')); // not looked at: the agent leaves encryption alone
    const { logger } = capturedLogger();
    inProcess.push(await startInProcessDevice(root, plane.url, logger, { os: false }));
    // the configuration parts have reported too: the agent's start-up writes are done
    await plane.waitForStatus(
      'DiskUnlock and the configuration parts reported',
      (status) =>
        diskUnlockOf(status) !== undefined &&
        ['network', 'ssh', 'proxy', 'logging'].every((part) => part in (status.configuration ?? {})),
    );
    expect(diskUnlockOf(plane.status)).toMatchObject({ status: 'True', reason: 'Unsupported' });
    expect(plane.status.diskUnlock).toBeUndefined();
  }, 30_000);
});
