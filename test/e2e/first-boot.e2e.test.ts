import { describe, expect, it } from 'vitest';
import { DATA_FILES } from './harness/device-root.js';
import { hookRuns } from './harness/e2e-device.js';
import { useScenario } from './harness/scenario.js';

describe('first boot', () => {
  const scenario = useScenario();

  it('comes Online reporting the factory version on slot A, with its data and hooks in place', async () => {
    const device = await scenario.device('first-boot');
    await device.powerOn();
    const online = await device.waitForConverged('1.0.0');
    expect(online.status?.deviceInfo?.deviceType).toBe('qemu-x86_64');
    expect(online.status?.osUpdate).toMatchObject({ bootBackend: 'grubenv', runningSlot: 'A', activeSlot: 'A' });
    expect(online.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'A', try_slot: '', try_count: '0' });
    expect(device.vm.boots[0]).toMatchObject({ slot: 'A', trial: 0 });
    // the on-boot hook ran in this boot (through its unit, before droplet), as the API reports it
    const bootId = online.status?.agent?.bootId;
    const withHook = await device.waitFor('the on-boot hook reported', (d) =>
      (d.status?.hooks ?? []).some((run) => run.hook === 'on-boot' && run.bootId === bootId),
    );
    expect(withHook.status?.hooks?.find((run) => run.hook === 'on-boot')).toMatchObject({
      exitCode: 0,
      timedOut: false,
    });

    const disk = await device.powerCutAndInspect();
    expect(disk.files[DATA_FILES.canary]).toBe(device.canary);
    expect(hookRuns(disk.files[DATA_FILES.hookLog])).toEqual([{ hook: 'on-boot', slot: 'A', version: '1.0.0' }]);
    expect(disk.grubenv).toMatchObject({ active_slot: 'A', try_slot: '' });
  });
});
