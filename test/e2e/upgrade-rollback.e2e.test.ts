import { describe, expect, it } from 'vitest';
import { DATA_FILES } from './harness/device-root.js';
import { hookRuns } from './harness/e2e-device.js';
import { inOrder } from './harness/os-ready.js';
import { useScenario } from './harness/scenario.js';

describe('A/B upgrade and rollback through the API', () => {
  const scenario = useScenario({ publish: ['1.0.0', '1.1.0'] });

  it('upgrades 1.0.0 → 1.1.0 through slot B, then rolls back to the retained slot A without a download', async () => {
    const { controlPlane, timings } = scenario;
    const device = await scenario.device('upgrade');
    await device.powerOn();
    await device.waitForConverged('1.0.0');

    // upgrade: download into slot B, try it once, reboot, commit
    const upgradeStart = Date.now();
    await device.setOsVersion('1.1.0');
    const upgraded = await device.waitForConverged('1.1.0', 15 * 60_000);
    timings.since('upgrade 1.0.0 → 1.1.0: PUT → Converged', upgradeStart);
    expect(controlPlane.artifactDownloads()).toBeGreaterThan(0);
    expect(upgraded.status?.osUpdate).toMatchObject({
      runningSlot: 'B',
      activeSlot: 'B',
      slots: { A: { version: '1.0.0' }, B: { version: '1.1.0' } },
    });
    expect(upgraded.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'B', try_slot: '', try_count: '0' });
    const [factoryBoot, trialBoot] = device.vm.boots;
    expect(factoryBoot).toMatchObject({ slot: 'A', trial: 0, exit: 'reboot' });
    expect(factoryBoot?.grubenvAfter).toMatchObject({ active_slot: 'A', try_slot: 'B', try_count: '0' });
    expect(trialBoot).toMatchObject({ slot: 'B', trial: 1 });
    const upgradeReasons = device.history.osReadyReasons(upgradeStart);
    expect(inOrder(upgradeReasons, ['Downloading', 'Rebooting', 'Converged']), upgradeReasons.join(' → ')).toBe(true);
    // the new version is reported only once committed
    expect(device.history.valuesSeen((d) => d.status?.deviceInfo?.osVersion)).toEqual(['1.0.0', '1.1.0']);

    // rollback: 1.0.0 is retained in slot A, so the device switches back without downloading anything
    const downloads = controlPlane.artifactDownloads();
    const rollbackStart = Date.now();
    await controlPlane.cli([
      'devices',
      'update',
      'devices',
      device.name,
      '--json',
      JSON.stringify({ spec: { osVersion: '1.0.0' } }),
      '--update-mask',
      'spec.osVersion',
    ]);
    const rolledBack = await device.waitForConverged('1.0.0');
    timings.since('rollback 1.1.0 → 1.0.0 (retained slot): PUT → Converged', rollbackStart);
    expect(controlPlane.artifactDownloads()).toBe(downloads);
    expect(rolledBack.status?.osUpdate).toMatchObject({ runningSlot: 'A', activeSlot: 'A' });
    expect(rolledBack.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'A', try_slot: '', try_count: '0' });
    expect(device.vm.boots[2]).toMatchObject({ slot: 'A', trial: 1 });
    expect(device.vm.boots[1]?.grubenvAfter).toMatchObject({ active_slot: 'B', try_slot: 'A', try_count: '0' });
    const rollbackReasons = device.history.osReadyReasons(rollbackStart);
    expect(rollbackReasons).not.toContain('Downloading');
    expect(inOrder(rollbackReasons, ['Rebooting', 'Converged']), rollbackReasons.join(' → ')).toBe(true);
    expect(device.vm.boots).toHaveLength(3);

    // the data partition kept the provisioning canary, and the hooks ran at every boot and shutdown
    const disk = await device.powerCutAndInspect();
    expect(disk.files[DATA_FILES.canary]).toBe(device.canary);
    expect(hookRuns(disk.files[DATA_FILES.hookLog])).toEqual([
      { hook: 'on-boot', slot: 'A', version: '1.0.0' },
      { hook: 'on-shutdown', slot: 'A', version: '1.0.0' },
      { hook: 'on-boot', slot: 'B', version: '1.1.0' },
      { hook: 'on-shutdown', slot: 'B', version: '1.1.0' },
      { hook: 'on-boot', slot: 'A', version: '1.0.0' },
    ]);
    expect(disk.grubenv).toMatchObject({ active_slot: 'A', try_slot: '', last_failed: '' });
  });
});
