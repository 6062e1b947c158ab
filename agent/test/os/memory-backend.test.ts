import { describe, expect, it } from 'vitest';
import { MemoryDevice, memoryBackend } from '../../src/os/boot/memory-backend.js';
import { memoryOsProgressStore } from '../../src/os/memory-progress.js';

describe('the in-memory simulated device and its boot backend', () => {
  it('boots the factory version, tries the other slot once, and commits it', async () => {
    const device = new MemoryDevice({ factoryVersion: '1.0.0' });
    const backend = memoryBackend(device);
    await expect(backend.readState()).rejects.toThrow('not running');
    const first = device.powerOn();
    expect(first).toMatchObject({ boot: { slot: 'A', trial: 0 }, failedBoots: 0 });
    expect(await backend.runningVersion()).toBe('1.0.0');
    expect(await backend.readState()).toMatchObject({ runningSlot: 'A', activeSlot: 'A', bootId: first.boot.bootId });

    await backend.setSlotVersion('B', '1.1.0');
    await backend.tryOnce('B');
    expect((await backend.readState()).trySlot).toBe('B');
    device.powerOff();
    const trial = device.powerOn();
    expect(trial.boot).toMatchObject({ slot: 'B', trial: 1 });
    expect(trial.boot.bootId).not.toBe(first.boot.bootId);
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'A' });
    await backend.commit('B');
    device.powerOff();
    device.powerOn();
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'B', env: { try_slot: '' } });
    expect(await backend.runningVersion()).toBe('1.1.0');
  });

  it('falls back to the active slot when the trial slot does not boot, and records it in last_failed', async () => {
    const device = new MemoryDevice({ factoryVersion: '1.0.0', bootable: (_slot, version) => version === '1.0.0' });
    const backend = memoryBackend(device);
    device.powerOn();
    await backend.setSlotVersion('B', '2.0.0');
    await backend.tryOnce('B');
    device.powerOff();
    expect(device.powerOn()).toMatchObject({ boot: { slot: 'A', trial: 0 }, failedBoots: 1 });
    expect(await backend.readState()).toMatchObject({ runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' });
    await backend.resetTry();
    expect((await backend.readState()).lastFailed).toBeUndefined();
  });

  it('a slot whose image is being replaced holds no version and does not boot', async () => {
    const device = new MemoryDevice({ factoryVersion: '1.0.0' });
    const backend = memoryBackend(device);
    device.powerOn();
    await backend.setSlotVersion('B', undefined);
    await backend.tryOnce('B');
    device.powerOff();
    expect(device.powerOn()).toMatchObject({ boot: { slot: 'A' }, failedBoots: 1 });
    expect(device.slotVersion('B')).toBeUndefined();
  });

  it('the progress store keeps a copy of what was written', async () => {
    const store = memoryOsProgressStore();
    expect(await store.read()).toEqual({ slots: {} });
    const progress = { slots: { A: { version: '1.0.0', good: true } } };
    await store.write(progress);
    progress.slots.A.version = 'changed afterwards';
    const read = await store.read();
    expect(read).toEqual({ slots: { A: { version: '1.0.0', good: true } } });
    read.slots.A!.good = false;
    expect((await store.read()).slots.A?.good).toBe(true);
  });
});
