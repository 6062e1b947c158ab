import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Device, HookName } from '@outpost/shared';
import { LUKS_VOLUME_KEY_BYTES, luksPayloadBytes, writeLuksImage } from '../../../images/lib/luks-data.js';
import type { ControlPlane } from './control-plane.js';
import { DeviceHistory, osReadyOf } from './device-history.js';
import { DATA_FILES, buildDataImage, provisionDeviceRoot } from './device-root.js';
import type { DiskLayout } from './disk-layout.js';
import { partitionOf } from './disk-layout.js';
import type { ImageSet } from './image-set.js';
import { Vm } from './qemu-vm.js';
import type { Boot } from './qemu-vm.js';
import type { Timings } from './timings.js';

export interface E2eDeviceOptions {
  /** droplet --commit-timeout: an uncommitted trial boot reboots into the fallback after this long; default 240 */
  commitTimeoutSeconds?: number;
  /** boots beyond this fail the scenario as a reboot loop; default 12 */
  maxBoots?: number;
  /** more DROPLET_* variables for {device_root}/config/droplet.env */
  dropletEnv?: Record<string, string>;
  /** hook scripts for {device_root}/config/hooks, replacing the default on-boot and on-shutdown ones of that name */
  hookScripts?: Partial<Record<HookName, string>>;
}

export interface E2eDeviceDeps {
  controlPlane: ControlPlane;
  images: ImageSet;
  layout: DiskLayout;
  timings: Timings;
  workDir: string;
  parent: string;
  /** QEMU start to droplet.service started */
  bootTimeoutMs: number;
  /** default timeout of waitFor */
  waitTimeoutMs: number;
}

/**
 * One device of a scenario: its record in the control plane, a provisioned data partition, the QEMU
 * machine that boots the image, and the history of the device as the watch API showed it.
 */
export class E2eDevice {
  readonly name: string;
  readonly history: DeviceHistory;
  /** the canary file written into {device_root}/data at provisioning */
  canary = '';
  /** an encrypted device: its keys as the factory made them (the recovery key is also in its config/) */
  encryption: DeviceEncryption | undefined = undefined;

  private constructor(
    readonly id: string,
    readonly vm: Vm,
    private readonly deps: E2eDeviceDeps,
  ) {
    this.name = `${deps.parent}/devices/${id}`;
    this.history = DeviceHistory.start(deps.controlPlane.admin, this.name);
  }

  /** Provisions `id` (CLI), builds its data partition into a fresh overlay; the machine stays off. */
  static async create(id: string, deps: E2eDeviceDeps, options: E2eDeviceOptions = {}): Promise<E2eDevice> {
    const dir = join(deps.workDir, id);
    await mkdir(dir, { recursive: true });
    const encrypted = deps.images.encryptedData;
    const encryption: DeviceEncryption | undefined =
      encrypted === undefined
        ? undefined
        : {
            factoryKey: randomBytes(32).toString('hex'),
            factoryKeyEspPath: encrypted.factoryKey,
            recoveryKeyFile: join(dir, 'recovery-key'),
            volumeKey: randomBytes(LUKS_VOLUME_KEY_BYTES),
          };
    const vm = await Vm.create({
      name: id,
      workDir: dir,
      baseDisk: deps.images.disk,
      layout: deps.layout,
      controlPlanePort: deps.controlPlane.port,
      bootTimeoutMs: deps.bootTimeoutMs,
      maxBoots: options.maxBoots ?? 12,
      ...(encryption === undefined ? {} : { tpmStateDir: join(dir, 'tpm'), dataVolumeKey: encryption.volumeKey }),
    });
    const deviceRoot = join(dir, 'device-root');
    const name = `${deps.parent}/devices/${id}`;
    const root = await provisionDeviceRoot(deviceRoot, {
      deviceName: name,
      controlPlane: deps.controlPlane,
      deviceType: deps.images.deviceType,
      factoryVersion: deps.images.factoryVersion,
      publicKey: deps.images.publicKey,
      commitTimeoutSeconds: options.commitTimeoutSeconds ?? 240,
      ...(options.dropletEnv === undefined ? {} : { dropletEnv: options.dropletEnv }),
      ...(options.hookScripts === undefined ? {} : { hookScripts: options.hookScripts }),
      ...(encryption === undefined ? {} : { recoveryKeyFile: encryption.recoveryKeyFile }),
    });
    const dataImage = join(dir, 'data.img');
    const partitionBytes = partitionOf(deps.layout, 'data').size;
    if (encryption === undefined) {
      await buildDataImage(deviceRoot, partitionBytes, dataImage);
    } else {
      // as a factory would: the data in a LUKS2 container opened by a factory key, which the first boot finds on
      // the ESP, enrols the TPM with, and removes
      const fsImage = join(dir, 'data-fs.img');
      const keyFile = join(dir, 'factory-key');
      await buildDataImage(deviceRoot, luksPayloadBytes(partitionBytes), fsImage);
      await writeFile(keyFile, encryption.factoryKey, { mode: 0o600 });
      await writeLuksImage({ fsImage, out: dataImage, size: partitionBytes, keyFile, volumeKey: encryption.volumeKey });
      await rm(fsImage, { force: true });
      await vm.writeEspFile(encryption.factoryKeyEspPath, encryption.factoryKey);
    }
    await vm.writeDataPartition(dataImage);
    await rm(dataImage, { force: true });
    await rm(deviceRoot, { recursive: true, force: true });
    const device = new E2eDevice(id, vm, deps);
    device.canary = root.canary;
    device.encryption = encryption;
    return device;
  }

  /** Powers the machine on (it keeps rebooting as the guest asks) and waits until the device is Online. */
  async powerOn(): Promise<Device> {
    const boot = this.vm.nextBoot(undefined, this.vm.boots.length);
    this.vm.powerOn();
    return this.waitForBootOnline(await boot);
  }

  /** Waits until the device is Online in `boot` (its agent reports a boot id not seen in earlier boots). */
  async waitForBootOnline(boot: Boot): Promise<Device> {
    const earlier = new Set(this.bootIdsBefore(boot.startedAt));
    const device = await this.waitFor(
      `the device Online in boot ${boot.index}`,
      (d) => isOnline(d) && d.status?.agent?.bootId !== undefined && !earlier.has(d.status.agent.bootId),
    );
    this.deps.timings.since(`${this.id} boot ${boot.index}: QEMU start → Online`, boot.startedAt);
    return device;
  }

  /** Waits for `predicate`; a timeout or a VM failure rejects with the device's status and the serial console. */
  waitFor(what: string, predicate: (device: Device) => boolean, timeoutMs = this.deps.waitTimeoutMs): Promise<Device> {
    return this.history.waitFor(what, predicate, timeoutMs, this.vm);
  }

  /** Waits until the device runs `version`, committed, with OSReady=True/Converged. */
  waitForConverged(version: string, timeoutMs?: number): Promise<Device> {
    return this.waitFor(
      `${version} running and OSReady=True/Converged`,
      (d) =>
        d.status?.deviceInfo?.osVersion === version &&
        osReadyOf(d)?.status === 'True' &&
        osReadyOf(d)?.reason === 'Converged',
      timeoutMs,
    );
  }

  /** Waits until OSReady has `reason` (and `status`, when given). */
  waitForOsReady(reason: string, status?: 'True' | 'False', timeoutMs?: number): Promise<Device> {
    return this.waitFor(
      `OSReady=${status ?? '*'}/${reason}`,
      (d) => osReadyOf(d)?.reason === reason && (status === undefined || osReadyOf(d)?.status === status),
      timeoutMs,
    );
  }

  /** Lets `ms` pass (to show that nothing more happens); rejects early if the VM fails meanwhile. */
  idleFor(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        removeGuard();
        resolve();
      }, ms);
      const removeGuard = this.vm.onFailure((err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** PUT spec.osVersion through the REST API. */
  setOsVersion(version: string): Promise<Device> {
    return this.deps.controlPlane.setOsVersion(this.name, version);
  }

  /** Power cut, then the files of the data partition (journal replayed) and grubenv as on the disk. */
  async powerCutAndInspect(): Promise<{ grubenv: Record<string, string>; files: Record<string, string | undefined> }> {
    if (this.vm.running) await this.vm.powerCut();
    const files = await this.vm.readDataFiles([DATA_FILES.canary, DATA_FILES.hookLog]);
    return { grubenv: await this.vm.readGrubenv(), files };
  }

  async dispose(): Promise<void> {
    await this.history.stop();
    await this.vm.dispose();
  }

  /** Boot ids the agent reported before `time`. */
  private bootIdsBefore(time: number): string[] {
    return this.history.observations
      .filter((o) => o.at < time)
      .map((o) => o.device.status?.agent?.bootId)
      .filter((id): id is string => id !== undefined);
  }
}

/** The keys of an encrypted device's data partition (LUKS2), as the harness made them. */
export interface DeviceEncryption {
  /** the factory key (hex text): the first key slot, and a file on the ESP until the first boot removes both */
  factoryKey: string;
  /** its path on the ESP */
  factoryKeyEspPath: string;
  /** the recovery key `outpost devices provision --encrypted --recovery-key-file` wrote */
  recoveryKeyFile: string;
  /** the LUKS2 volume key (the harness reads the data partition with it) */
  volumeKey: Buffer;
}

export const isOnline = (device: Device): boolean => device.status?.connectionStatus === 'CONNECTED';

/** Hook runs recorded in the hook log: `{hook, slot, version}` per line. */
export function hookRuns(log: string | undefined): { hook: string; slot: string; version: string }[] {
  return (log ?? '')
    .split('\n')
    .map((line) => /^(\S+) \d+ slot=(\S*) version=(\S*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ hook: m[1] ?? '', slot: m[2] ?? '', version: m[3] ?? '' }));
}
