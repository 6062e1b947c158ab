import { describe, expect, it } from 'vitest';
import { DATA_FILES } from './harness/device-root.js';
import { downloadPercent } from './harness/os-ready.js';
import { useScenario } from './harness/scenario.js';

describe('power cut during an upgrade', () => {
  const scenario = useScenario({ publish: ['1.1.0'] });

  it('resumes the download after a power cut in the middle of it, and converges', async () => {
    const { controlPlane, timings } = scenario;
    const device = await scenario.device('power-cut');
    await device.powerOn();
    await device.waitForConverged('1.0.0');

    const start = Date.now();
    await device.setOsVersion('1.1.0');
    const midway = await device.waitFor('the download between 10% and 80%', (d) => {
      const percent = downloadPercent(d);
      return percent !== undefined && percent >= 10 && percent <= 80;
    });
    await device.vm.powerCut();
    timings.record(`power cut at ${downloadPercent(midway) ?? 0}% of the download`, (Date.now() - start) / 1000);
    const downloadsBeforeCut = controlPlane.artifactDownloads();

    // SIGKILL left the overlay consistent, the bootloader untouched and the data partition intact
    await device.vm.checkOverlay();
    const disk = await device.powerCutAndInspect();
    expect(disk.grubenv).toMatchObject({ active_slot: 'A', try_slot: '', try_count: '0' });
    expect(disk.files[DATA_FILES.canary]).toBe(device.canary);

    const afterCut = Date.now();
    const online = await device.powerOn();
    const bootId = online.status?.agent?.bootId;
    const resumed = await device.waitFor(
      'the download resumed',
      (d) => d.status?.agent?.bootId === bootId && downloadPercent(d) !== undefined,
    );
    // it continues from its last checkpoint instead of starting over
    expect(downloadPercent(resumed)).toBeGreaterThan(0);
    const converged = await device.waitForConverged('1.1.0', 15 * 60_000);
    timings.since('upgrade with a power cut mid-download: PUT → Converged', start);
    expect(controlPlane.artifactDownloads()).toBeGreaterThan(downloadsBeforeCut);
    expect(converged.status?.osUpdate).toMatchObject({
      runningSlot: 'B',
      activeSlot: 'B',
      slots: { A: { version: '1.0.0' }, B: { version: '1.1.0' } },
    });
    expect(converged.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'B', try_slot: '', try_count: '0' });
    expect(device.vm.boots.map((b) => [b.slot, b.trial, b.exit ?? 'running'])).toEqual([
      ['A', 0, 'power-cut'],
      ['A', 0, 'reboot'],
      ['B', 1, 'running'],
    ]);
    expect(device.history.valuesSeen((d) => d.status?.deviceInfo?.osVersion, afterCut)).toEqual(['1.0.0', '1.1.0']);
  });
});
