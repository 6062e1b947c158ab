import { afterEach, describe, expect, it } from 'vitest';
import type { ReportedStatus } from '@outpost/shared';
import { PANIC_MARKER } from '../../src/os/boot/simulated-boot.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { startDropletProcess, provisionSimulatedDevice } from './helpers/droplet-process.js';
import type { DropletProcess } from './helpers/droplet-process.js';
import { FakeControlPlane } from './helpers/fake-control-plane.js';
import { signingKey, testImage } from './helpers/os-images.js';
import { expectOnlyCommittedVersionsReported, runningSlotVersion } from './helpers/device-checks.js';

const tempDir = useTempDirs();
const running: DropletProcess[] = [];
const planes: FakeControlPlane[] = [];
afterEach(async () => {
  for (const droplet of running.splice(0)) droplet.child.kill('SIGKILL');
  await Promise.all(planes.splice(0).map((plane) => plane.close()));
});

const key = signingKey();
const KiB = 1024;

async function simulatedDevice(args: string[] = [], env: Record<string, string> = {}) {
  const plane = await FakeControlPlane.start();
  planes.push(plane);
  const root = await tempDir();
  await provisionSimulatedDevice(root, plane.url, key);
  const droplet = startDropletProcess(root, args, env);
  running.push(droplet);
  return { plane, root, droplet };
}

/** The upgrade steps the agent carried out, from its log. */
function stepsOf(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '')
    .filter((msg) => msg.startsWith('OS update: '))
    .map((msg) => msg.slice('OS update: '.length));
}

const converged = (version: string) => (status: ReportedStatus, osReady?: { status: string; reason: string }) =>
  status.deviceInfo?.osVersion === version && osReady?.status === 'True' && osReady.reason === 'Converged';

describe('droplet --boot-backend file: A/B upgrades of a simulated device (real child process)', () => {
  it('upgrades, rolls back to the retained slot without a download, falls back from a panicking image, and retries a version only after the spec changed', async () => {
    const { plane, root, droplet } = await simulatedDevice();
    await plane.waitForStatus('the factory version', converged('1.0.0'));
    expect(plane.status.osUpdate).toMatchObject({
      bootBackend: 'file',
      runningSlot: 'A',
      activeSlot: 'A',
      slots: { A: { version: '1.0.0' }, B: {} },
    });
    expect(plane.status.deviceInfo?.deviceType).toBe('simulated');
    expect(plane.status.deviceInfo?.managedFeatures).toMatchObject({ os: true });

    // 1.0.0 → 1.1.0: download into B, try B once, reboot (same process), commit
    const v110 = testImage('1.1.0', 300 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForStatus('1.1.0 committed', converged('1.1.0'));
    expect(plane.status.osUpdate).toMatchObject({
      runningSlot: 'B',
      activeSlot: 'B',
      slots: { A: { version: '1.0.0' }, B: { version: '1.1.0' } },
      bootEnv: { active_slot: 'B', try_slot: '', last_failed: '' },
    });
    expect(new Set(plane.hellos.map((h) => h.bootId)).size).toBe(2); // one reboot
    expect(droplet.child.exitCode).toBeNull(); // the same process
    expect(stepsOf(droplet.output())).toEqual(['start-download', 'download', 'switch', 'reboot', 'commit']);
    expect(droplet.output()).toContain('simulated bootloader: booted slot B (trial=1)');
    // (intermediate conditions are coalesced by the status throttle; the one before a reboot is flushed)
    expect(plane.osReadyHistory()).toEqual(
      expect.arrayContaining([
        'False/Rebooting: rebooting into 1.1.0 (slot B)',
        'True/Converged: running 1.1.0 in slot B',
      ]),
    );
    expect(await runningSlotVersion(root)).toBe('1.1.0');

    // back to 1.0.0: still retained in A, so no download
    const served = plane.artifacts.requests.length;
    plane.setOsVersion('1.0.0');
    await plane.waitForStatus('1.0.0 again', converged('1.0.0'));
    expect(plane.artifacts.requests.length).toBe(served);
    expect(plane.status.osUpdate).toMatchObject({ runningSlot: 'A', activeSlot: 'A' });
    expect(stepsOf(droplet.output()).slice(5)).toEqual(['start-switch', 'switch', 'reboot', 'commit']);
    expect(plane.osReadyHistory()).toContain('False/Rebooting: rebooting into 1.0.0 (slot A)');

    // 1.2.0 never boots: the bootloader falls back, the agent reports RolledBack and does not retry
    const v120 = testImage('1.2.0', 200 * KiB, key, PANIC_MARKER);
    plane.publish(v120.image, v120.content);
    plane.setOsVersion('1.2.0', v120.image);
    await plane.waitForOsReady(
      'RolledBack',
      /^1\.2\.0 did not boot or was not committed in slot B; running 1\.0\.0; not retried until spec\.osVersion changes$/,
    );
    expect(plane.osReadyHistory().at(-1)).toMatch(/^False\/RolledBack/);
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');
    expect(plane.status.osUpdate).toMatchObject({ runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' });
    expect(plane.status.osUpdate?.bootEnv).toMatchObject({ last_failed: 'B', try_slot: '' });
    const after = plane.artifacts.requests.length;
    plane.setOsVersion('1.2.0', v120.image); // the same spec again (a reconnect, a re-read)
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(plane.artifacts.requests.length).toBe(after);
    expect(plane.osReady?.reason).toBe('RolledBack');

    // a different version is tried; then 1.2.0 again would be too (the spec changed in between)
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForStatus('1.1.0 again', converged('1.1.0'));
    expect(await runningSlotVersion(root)).toBe('1.1.0');
    expectOnlyCommittedVersionsReported(plane.statuses);
  }, 90_000);

  it('a trial boot that never commits (OUTPOST_TEST_NEVER_COMMIT) reboots at --commit-timeout and rolls back', async () => {
    const { plane, root } = await simulatedDevice(['--commit-timeout', '2'], { OUTPOST_TEST_NEVER_COMMIT: '1' });
    await plane.waitForStatus('the factory version', converged('1.0.0'));
    const v110 = testImage('1.1.0', 100 * KiB, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForOsReady('Verifying', /not committed yet: commits are disabled \(OUTPOST_TEST_NEVER_COMMIT\)$/);
    await plane.waitForOsReady(
      'RolledBack',
      /^1\.1\.0 was rolled back: slot B \(1\.1\.0\) was not committed within 2 s \(commits are disabled \(OUTPOST_TEST_NEVER_COMMIT\)\); running 1\.0\.0/,
    );
    expect(plane.osReadyHistory()).toContain(
      'False/Rebooting: slot B (1.1.0) was not committed within 2 s (commits are disabled (OUTPOST_TEST_NEVER_COMMIT)); rebooting into slot A',
    );
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');
    expect(await runningSlotVersion(root)).toBe('1.0.0');
    expect(new Set(plane.hellos.map((h) => h.bootId)).size).toBe(3);
    expectOnlyCommittedVersionsReported(plane.statuses);
  }, 60_000);
});
