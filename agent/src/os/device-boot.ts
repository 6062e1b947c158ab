import { join } from 'node:path';
import type { Slot } from '@outpost/shared';
import type { BootBackend as BootBackendKind } from '../config/droplet-config.js';
import type { Logger } from '../logging/logger.js';
import type { Power } from '../power/power.js';
import { simulatedPower } from '../power/simulated-power.js';
import type { SimulatedPowerEvent } from '../power/simulated-power.js';
import { systemctlPower } from '../power/systemctl-power.js';
import { readBootId } from '../runtime-facts.js';
import type { BootBackend } from './boot/boot-backend.js';
import { fileBackend } from './boot/file-backend.js';
import { grubenvBackend } from './boot/grubenv-backend.js';
import { DEVICE_TYPE_FILE, readFirstLine } from './boot/running-root.js';
import { simulatedBoot } from './boot/simulated-boot.js';
import { simulatedDevicePaths } from './boot/simulated-device.js';
import { ubootBackend } from './boot/uboot-backend.js';
import { ENCRYPTED_DATA_CONFIG, encryptedDataUnlock, readEncryptedDataConfig } from './unlock/encrypted-data.js';
import { simulatedTpm } from './unlock/simulated-tpm.js';
import type { DiskUnlockAdapter } from './unlock/unlock-adapter.js';

/** Where the backends find things; every path has the real device's default. */
export interface BootSettings {
  bootBackend: BootBackendKind;
  deviceRoot: string;
  /** the file backend's slot A on a brand-new device; default 1.0.0 */
  factoryVersion?: string;
  /** the file backend's slot capacity */
  slotSizeBytes: number;
  grubenvFile?: string;
  cmdlineFile?: string;
  osVersionFile?: string;
  slotPaths?: Record<Slot, string>;
  fwPrintenv?: string;
  fwSetenv?: string;
}

/** The device as one boot of it sees it. */
export interface BootedDevice {
  bootId: string;
  /** undefined with the `none` backend */
  backend: BootBackend | undefined;
  power: Power;
  /** settles when the simulated device reboots or powers off (never for a real device) */
  powerEvent: Promise<SimulatedPowerEvent>;
  /** the simulated device's volatile folder (file backend) */
  volatileDir?: string;
  /** the TPM binding of the encrypted data partition; absent when the data partition is not encrypted */
  diskUnlock?: DiskUnlockAdapter;
}

export const DEFAULT_FACTORY_VERSION = '1.0.0';

/**
 * Boots the device as far as the agent is concerned: with the file backend, runs the simulated
 * bootloader (when the device was off); otherwise reads the kernel's boot id.
 */
export async function bootDevice(settings: BootSettings, logger: Logger): Promise<BootedDevice> {
  const never = new Promise<SimulatedPowerEvent>(() => {});
  if (settings.bootBackend === 'file') {
    const paths = simulatedDevicePaths(settings.deviceRoot);
    const { boot, booted } = await simulatedBoot(paths, {
      factoryVersion: settings.factoryVersion ?? DEFAULT_FACTORY_VERSION,
      log: (message) => logger.info(`simulated bootloader: ${message}`),
    });
    if (!booted) logger.info({ slot: boot.slot }, 'the agent restarted (the simulated device did not reboot)');
    // the simulated initrd: whether the TPM unlocks the "encrypted" data is settled at boot, before the agent seals
    const diskUnlock = await simulatedTpm(settings.deviceRoot, paths);
    if (diskUnlock !== undefined) await diskUnlock.unlockedThisBoot();
    let powerEvent: (event: SimulatedPowerEvent) => void = () => {};
    const event = new Promise<SimulatedPowerEvent>((resolve) => (powerEvent = resolve));
    return {
      bootId: boot.bootId,
      backend: fileBackend({ paths, slotSizeBytes: settings.slotSizeBytes }),
      power: simulatedPower(paths.volatileDir, powerEvent),
      powerEvent: event,
      volatileDir: paths.volatileDir,
      ...(diskUnlock === undefined ? {} : { diskUnlock }),
    };
  }
  const bootId = await readBootId();
  const backendBootId = async (): Promise<string> => bootId;
  const common = {
    bootId: backendBootId,
    ...(settings.cmdlineFile === undefined ? {} : { cmdlineFile: settings.cmdlineFile }),
    ...(settings.osVersionFile === undefined ? {} : { osVersionFile: settings.osVersionFile }),
    ...(settings.slotPaths === undefined ? {} : { slotPaths: settings.slotPaths }),
  };
  let backend: BootBackend | undefined;
  if (settings.bootBackend === 'grubenv') {
    backend = grubenvBackend({
      ...common,
      ...(settings.grubenvFile === undefined ? {} : { envFile: settings.grubenvFile }),
    });
  } else if (settings.bootBackend === 'uboot') {
    backend = ubootBackend({
      ...common,
      ...(settings.fwPrintenv === undefined ? {} : { printenv: settings.fwPrintenv }),
      ...(settings.fwSetenv === undefined ? {} : { setenv: settings.fwSetenv }),
    });
  }
  // an image with a LUKS2 data partition names it; the agent then keeps its TPM seal in step with the slots
  const encrypted = backend === undefined ? undefined : await readEncryptedDataConfig(ENCRYPTED_DATA_CONFIG);
  return {
    bootId,
    backend,
    power: systemctlPower(),
    powerEvent: never,
    ...(encrypted === undefined ? {} : { diskUnlock: encryptedDataUnlock(encrypted, { bootId: backendBootId }) }),
  };
}

/** The device type when none is configured: `simulated` for the file backend, else the running root's. */
export async function defaultDeviceType(bootBackend: BootBackendKind): Promise<string | undefined> {
  if (bootBackend === 'file') return 'simulated';
  if (bootBackend === 'none') return undefined;
  return readFirstLine(DEVICE_TYPE_FILE);
}

/** The trusted-key folders: {device_root}/config/trust, plus the OS image's own on a managed real device. */
export function defaultTrustDirs(deviceRoot: string, bootBackend: BootBackendKind): string[] {
  const dirs = [join(deviceRoot, 'config', 'trust')];
  if (bootBackend === 'grubenv' || bootBackend === 'uboot') dirs.push('/etc/outpost/trusted-keys');
  return dirs;
}
