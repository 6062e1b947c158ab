import { describe, expect, it } from 'vitest';
import type { E2eDevice } from './harness/e2e-device.js';
import { osReadyOf } from './harness/device-history.js';
import { inOrder } from './harness/os-ready.js';
import { useScenario } from './harness/scenario.js';

/** How long a rolled-back device is watched to show it does not try again (longer than the agent's idle re-check). */
const QUIET_MS = 40_000;

describe('automatic fallback to the retained slot', () => {
  const scenario = useScenario({ publish: ['1.2.0', '1.3.0'] });

  /** PUT `version`, then wait for the bootloader to return to slot A and the agent to report RolledBack. */
  async function upgradeThatRollsBack(device: E2eDevice, version: string): Promise<number> {
    await device.powerOn();
    await device.waitForConverged('1.0.0');
    const start = Date.now();
    await device.setOsVersion(version);
    const rolledBack = await device.waitForOsReady('RolledBack', 'False', 20 * 60_000);
    scenario.timings.since(`fallback from ${version}: PUT → RolledBack`, start);
    // an agent that gave up its trial says why (it came up and did not commit); a kernel that panics says nothing
    const message = osReadyOf(rolledBack)?.message ?? '';
    const why = `${version} was rolled back: slot B (${version}) was not committed within`;
    const noWord = `${version} did not boot or was not committed in slot B`;
    expect(message.startsWith(why) || message.startsWith(noWord), message).toBe(true);
    expect(message).toContain('; running 1.0.0');
    expect(rolledBack.status?.deviceInfo?.osVersion).toBe('1.0.0');
    expect(rolledBack.status?.osUpdate).toMatchObject({ runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' });
    expect(rolledBack.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'A', try_slot: '', last_failed: 'B' });
    const [factoryBoot, trialBoot, fallbackBoot] = device.vm.boots;
    expect(factoryBoot).toMatchObject({ slot: 'A', trial: 0, exit: 'reboot' });
    expect(factoryBoot?.grubenvAfter).toMatchObject({ active_slot: 'A', try_slot: 'B', try_count: '0' });
    expect(trialBoot).toMatchObject({ slot: 'B', trial: 1 });
    expect(trialBoot?.grubenvAfter).toMatchObject({ active_slot: 'A', try_slot: 'B', try_count: '1' });
    expect(fallbackBoot).toMatchObject({ slot: 'A', trial: 0, fellBackFrom: 'B' });
    // the version that failed was never reported as running
    expect(device.history.valuesSeen((d) => d.status?.deviceInfo?.osVersion)).toEqual(['1.0.0']);
    return start;
  }

  /** The rolled-back device stays on slot A: no reboot, no download, OSReady unchanged. */
  async function expectNoRetry(device: E2eDevice): Promise<void> {
    const boots = device.vm.boots.length;
    const downloads = scenario.controlPlane.artifactDownloads();
    await device.idleFor(QUIET_MS);
    expect(device.vm.running).toBe(true);
    expect(device.vm.boots).toHaveLength(boots);
    expect(scenario.controlPlane.artifactDownloads()).toBe(downloads);
    expect(osReadyOf(device.history.latest)).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
      message: expect.stringMatching(/; not retried until spec\.osVersion changes$/),
    });
  }

  it('returns to slot A when the new image boots but its agent never commits (1.2.0)', async () => {
    // the trial's agent has to connect and report Verifying before the timeout (kernel start → Online: ~25 s on CI,
    // 2x that on a slow one); the rest of the timeout is only the wait for the fallback
    const device = await scenario.device('no-commit', { commitTimeoutSeconds: 75 });
    const start = await upgradeThatRollsBack(device, '1.2.0');
    expect(device.vm.boots[1]?.exit).toBe('reboot'); // the commit timeout rebooted the trial
    const reasons = device.history.osReadyReasons(start);
    expect(inOrder(reasons, ['Downloading', 'Rebooting', 'Verifying', 'RolledBack']), reasons.join(' → ')).toBe(true);
    await expectNoRetry(device);
  });

  it('returns to slot A when the new image panics at boot (1.3.0)', async () => {
    const device = await scenario.device('kernel-panic');
    const start = await upgradeThatRollsBack(device, '1.3.0');
    expect(device.vm.boots[1]?.exit).toBe('kernel-panic');
    const reasons = device.history.osReadyReasons(start);
    expect(inOrder(reasons, ['Downloading', 'Rebooting', 'RolledBack']), reasons.join(' → ')).toBe(true);
    expect(reasons).not.toContain('Verifying');
    await expectNoRetry(device);
  });
});
