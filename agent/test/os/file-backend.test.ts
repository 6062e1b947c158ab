import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileBackend } from '../../src/os/boot/file-backend.js';
import { PANIC_MARKER, simulatedBoot } from '../../src/os/boot/simulated-boot.js';
import { simulatedDevicePaths } from '../../src/os/boot/simulated-device.js';
import type { SimulatedDevicePaths } from '../../src/os/boot/simulated-device.js';
import { simulatedPower } from '../../src/power/simulated-power.js';
import type { SimulatedPowerEvent } from '../../src/power/simulated-power.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

async function newDevice() {
  const root = await tempDir();
  const paths = simulatedDevicePaths(root);
  const backend = fileBackend({ paths, slotSizeBytes: 1024 * 1024 });
  const boot = () => simulatedBoot(paths, { factoryVersion: '1.0.0' });
  /** a reboot or a power cut: the volatile state is lost, the bootloader runs */
  const powerCycle = async () => {
    await rm(paths.volatileDir, { recursive: true, force: true });
    return boot();
  };
  return { root, paths, backend, boot, powerCycle };
}

/** What the agent does to install `version` into `slot` (the image content is the test's). */
async function install(
  paths: SimulatedDevicePaths,
  backend: ReturnType<typeof fileBackend>,
  slot: 'A' | 'B',
  version: string,
  content = 'an OS image',
) {
  await backend.setSlotVersion(slot, undefined);
  await writeFile(join(paths.slotsDir, `${slot}.img`), content);
  await backend.setSlotVersion(slot, version);
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('the file boot backend and its simulated bootloader', () => {
  it('a brand-new device boots the factory version in slot A; an agent restart is not a boot', async () => {
    const { paths, backend, boot } = await newDevice();
    const first = await boot();
    expect(first.booted).toBe(true);
    expect(first.boot).toMatchObject({ slot: 'A', trial: 0 });
    expect(await readFile(join(paths.slotsDir, 'A.version'), 'utf8')).toBe('1.0.0\n');
    expect(await exists(join(paths.slotsDir, 'A.img'))).toBe(true);
    expect(JSON.parse(await readFile(paths.stateFile, 'utf8'))).toEqual({ activeSlot: 'A', tryCount: 0, maxTries: 1 });

    const restart = await boot();
    expect(restart).toEqual({ boot: first.boot, booted: false });
    const state = await backend.readState();
    expect(state).toMatchObject({ bootId: first.boot.bootId, runningSlot: 'A', activeSlot: 'A' });
    expect(state.env).toEqual({ active_slot: 'A', try_slot: '', try_count: '0', max_tries: '1', last_failed: '' });
    expect(await backend.runningVersion()).toBe('1.0.0');
  });

  it('tries a slot once: a trial boot, then committed it stays', async () => {
    const { paths, backend, boot, powerCycle } = await newDevice();
    const first = await boot();
    await install(paths, backend, 'B', '1.1.0');
    await backend.resetTry();
    await backend.tryOnce('B');
    expect((await backend.readState()).trySlot).toBe('B');

    const trial = await powerCycle();
    expect(trial.boot).toMatchObject({ slot: 'B', trial: 1 });
    expect(trial.boot.bootId).not.toBe(first.boot.bootId);
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'A', trySlot: 'B' });
    expect(await backend.runningVersion()).toBe('1.1.0');

    await backend.commit('B');
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'B' });
    expect((await powerCycle()).boot).toMatchObject({ slot: 'B', trial: 0 });
  });

  it('an uncommitted trial falls back at the next boot (power cut during the trial)', async () => {
    const { paths, backend, boot, powerCycle } = await newDevice();
    await boot();
    await install(paths, backend, 'B', '1.1.0');
    await backend.tryOnce('B');
    expect((await powerCycle()).boot.slot).toBe('B');
    const fallback = await powerCycle();
    expect(fallback.boot).toMatchObject({ slot: 'A', trial: 0 });
    expect(await backend.readState()).toMatchObject({ runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' });
    expect((await backend.readState()).trySlot).toBeUndefined();
  });

  it(`an image starting with ${PANIC_MARKER} never boots: the same power-on ends in the fallback`, async () => {
    const { paths, backend, boot, powerCycle } = await newDevice();
    await boot();
    await install(paths, backend, 'B', '1.2.0', `${PANIC_MARKER} and then the kernel`);
    await backend.tryOnce('B');
    const log: string[] = [];
    await rm(paths.volatileDir, { recursive: true });
    const result = await simulatedBoot(paths, { factoryVersion: '1.0.0', log: (m) => log.push(m) });
    expect(result.boot).toMatchObject({ slot: 'A', trial: 0 });
    expect(log).toEqual(['slot B (trial=1) does not boot: kernel panic; rebooting', 'booted slot A (trial=0)']);
    expect(await backend.readState()).toMatchObject({ activeSlot: 'A', lastFailed: 'B' });
    expect((await powerCycle()).boot.slot).toBe('A');
  });

  it('a slot whose image is being replaced holds no OS and does not boot', async () => {
    const { paths, backend, boot } = await newDevice();
    await boot();
    await install(paths, backend, 'B', '1.1.0');
    await backend.setSlotVersion('B', undefined);
    expect(await exists(join(paths.slotsDir, 'B.version'))).toBe(false);
    await backend.tryOnce('B');
    await rm(paths.volatileDir, { recursive: true });
    const log: string[] = [];
    expect((await simulatedBoot(paths, { factoryVersion: '1.0.0', log: (m) => log.push(m) })).boot.slot).toBe('A');
    expect(log[0]).toMatch(/slot B .* holds no OS/);
  });

  it('slots are growable files of --slot-size bytes', async () => {
    const { paths, backend, boot } = await newDevice();
    await boot();
    const target = backend.slotTarget('B');
    expect(target).toMatchObject({ slot: 'B', path: join(paths.slotsDir, 'B.img'), growable: true });
    expect(await target.capacity()).toBe(1024 * 1024);
  });

  it('the simulated power loses the volatile state, then tells the agent to reboot or power off', async () => {
    const { paths, boot } = await newDevice();
    await boot();
    const events: SimulatedPowerEvent[] = [];
    const power = simulatedPower(paths.volatileDir, (event) => events.push(event));
    await power.reboot();
    expect(await exists(paths.bootFile)).toBe(false);
    await boot();
    await power.poweroff();
    expect(events).toEqual(['reboot', 'poweroff']);
    expect(await exists(paths.volatileDir)).toBe(false);
  });
});
