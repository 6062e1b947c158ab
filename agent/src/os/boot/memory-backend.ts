import { randomUUID } from 'node:crypto';
import type { Slot } from '@outpost/shared';
import type { BootBackend, BootState } from './boot-backend.js';
import { bootStateOf } from './simulated-device.js';
import type { SimulatedBoot } from './simulated-device.js';
import type { SlotTarget } from './slot-target.js';
import { chooseBootSlot } from './try-once.js';
import type { TryOnceEnv } from './try-once.js';

/** More failed boots in a row than this means no slot can boot (as in simulated-boot.ts). */
const MAX_BOOT_ATTEMPTS = 8;

export interface MemoryDeviceOptions {
  /** the version in slot A of the brand-new device */
  factoryVersion: string;
  /** whether `version` in `slot` boots; default every slot that holds a version does */
  bootable?: (slot: Slot, version: string) => boolean;
  now?: () => number;
}

/** How one power-on went: the boot that came up, and the boot attempts that failed before it. */
export interface MemoryPowerOn {
  boot: SimulatedBoot;
  failedBoots: number;
}

/**
 * The file backend's simulated device, held in memory (boot-backend.ts, "memory"): the bootloader's try-once
 * variables and the version each slot holds survive reboots as long as this object lives; the running boot is
 * the volatile part, gone at `powerOff`. Images are not kept: a slot is its version.
 */
export class MemoryDevice {
  private env: TryOnceEnv = { activeSlot: 'A', tryCount: 0, maxTries: 1 };
  private readonly slotVersions = new Map<Slot, string>();
  private running: SimulatedBoot | undefined;

  constructor(private readonly options: MemoryDeviceOptions) {
    this.slotVersions.set('A', options.factoryVersion);
  }

  /** this boot, or undefined while the device is off */
  get boot(): SimulatedBoot | undefined {
    return this.running;
  }

  /** the bootloader's variables now */
  get bootloader(): Readonly<TryOnceEnv> {
    return this.env;
  }

  slotVersion(slot: Slot): string | undefined {
    return this.slotVersions.get(slot);
  }

  /**
   * Powers the device on (when off): the bootloader picks a slot with the try-once logic, and a slot that does not
   * boot makes it boot again until one does. Throws when no slot boots.
   */
  powerOn(): MemoryPowerOn {
    if (this.running !== undefined) return { boot: this.running, failedBoots: 0 };
    for (let attempt = 0; attempt < MAX_BOOT_ATTEMPTS; attempt++) {
      const choice = chooseBootSlot(this.env);
      this.env = choice.env;
      const version = this.slotVersions.get(choice.slot);
      if (version !== undefined && (this.options.bootable?.(choice.slot, version) ?? true)) {
        this.running = {
          bootId: randomUUID(),
          slot: choice.slot,
          trial: choice.trial,
          bootTimeMs: (this.options.now ?? Date.now)(),
        };
        return { boot: this.running, failedBoots: attempt };
      }
    }
    throw new Error(`the simulated device cannot boot any slot (${MAX_BOOT_ATTEMPTS} failed boots in a row)`);
  }

  /** Powers off (or the first half of a reboot): the running boot is lost. */
  powerOff(): void {
    this.running = undefined;
  }

  /** Changes the bootloader's variables (the backend's writes). */
  updateBootloader(change: (env: TryOnceEnv) => TryOnceEnv): void {
    this.env = change(this.env);
  }

  setSlotVersion(slot: Slot, version: string | undefined): void {
    if (version === undefined) this.slotVersions.delete(slot);
    else this.slotVersions.set(slot, version);
  }
}

/** The BootBackend of a MemoryDevice; the device must be on. */
export function memoryBackend(device: MemoryDevice, slotSizeBytes = 64 * 1024 * 1024): BootBackend {
  const running = (): SimulatedBoot => {
    const boot = device.boot;
    if (boot === undefined) throw new Error('the simulated device is not running');
    return boot;
  };
  return {
    name: 'memory',
    async readState(): Promise<BootState> {
      return bootStateOf(running(), device.bootloader);
    },
    async runningVersion() {
      return device.slotVersion(running().slot);
    },
    async resetTry() {
      device.updateBootloader(({ trySlot: _try, lastFailed: _failed, ...rest }) => ({ ...rest, tryCount: 0 }));
    },
    async tryOnce(slot) {
      device.updateBootloader(({ lastFailed: _failed, ...rest }) => ({ ...rest, trySlot: slot, tryCount: 0 }));
    },
    async commit(slot) {
      device.updateBootloader(({ trySlot: _try, ...rest }) => ({ ...rest, activeSlot: slot, tryCount: 0 }));
    },
    slotTarget: (slot): SlotTarget => ({
      slot,
      path: `memory:${slot}`,
      growable: false,
      capacity: async () => slotSizeBytes,
    }),
    async setSlotVersion(slot, version) {
      device.setSlotVersion(slot, version);
    },
  };
}
