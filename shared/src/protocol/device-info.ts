import { z } from 'zod';
import { boundedRecord, byteCount, label, percent, text } from './bounds.js';

// Every member is optional, as in the proto3 JSON this mirrors: a record may hold partial information
// (an agent that cannot read a fact leaves it out; a device created through the API has none yet).

/**
 * °C a sensor can read: from absolute zero to well past any chip's limit, so that a sensor's odd code (255) does
 * not cost the device its whole sample.
 */
export const temperatureCelsius = z.number().min(-273.15).max(1000);

export const systemInformationSchema = z.object({
  manufacturer: text.optional(),
  productName: text.optional(),
  version: text.optional(),
  serialNumber: text.optional(),
  /** the SMBIOS UUID, chassis type and SKU (reference.md: system.configuration) */
  configuration: z
    .object({ chassis: label.optional(), uuid: label.optional(), skuNumber: label.optional() })
    .optional(),
  /** a virtual machine or container, as far as the device can tell */
  virtual: z.boolean().optional(),
  /** the hypervisor or container runtime of a virtual device, e.g. `KVM` */
  virtualHost: label.optional(),
});

/** The mainboard (DMI baseboard; empty on boards without DMI). */
export const baseboardInformationSchema = z.object({
  manufacturer: text.optional(),
  model: text.optional(),
  version: text.optional(),
  serialNumber: text.optional(),
  /** how much memory the board takes, and in how many slots */
  memoryMaxBytes: byteCount.optional(),
  memorySlots: z.int().min(0).max(65_536).optional(),
});

export const cpuInformationSchema = z.object({
  model: text.optional(),
  cores: z.int().min(0).max(65_536).optional(),
  speedGHz: z.number().min(0).max(1000).optional(),
  physicalCores: z.int().min(0).max(65_536).optional(),
  /** sockets */
  processors: z.int().min(0).max(1024).optional(),
});

/** One memory module (or, where the firmware tells nothing, the whole memory as one bank). */
export const memoryModuleSchema = z.object({
  sizeBytes: byteCount.optional(),
  bank: label.optional(),
  /** DDR4, LPDDR4, ... */
  type: label.optional(),
  clockSpeedMHz: z.number().min(0).max(1_000_000).optional(),
  formFactor: label.optional(),
  partNumber: label.optional(),
  serialNumber: label.optional(),
});

export const partitionInformationSchema = z.object({
  /** e.g. `sda1` */
  name: label.optional(),
  sizeBytes: byteCount.optional(),
  fsType: label.optional(),
  mountpoint: text.optional(),
  label: label.optional(),
  uuid: label.optional(),
});

export const diskInformationSchema = z.object({
  name: text.optional(),
  type: label.optional(),
  sizeBytes: byteCount.optional(),
  model: text.optional(),
  vendor: text.optional(),
  serialNumber: text.optional(),
  /** SATA, NVMe, USB, ... */
  interfaceType: label.optional(),
  removable: z.boolean().optional(),
  partitions: z.array(partitionInformationSchema).max(1024).optional(),
});

/** A mounted file system (its usage comes with the metrics, in usage.storage). */
export const fileSystemInformationSchema = z.object({
  /** the device or source, e.g. `/dev/sda1` */
  device: text.optional(),
  type: label.optional(),
  mount: text.optional(),
  sizeBytes: byteCount.optional(),
  readOnly: z.boolean().optional(),
});

export const biosInformationSchema = z.object({
  vendor: text.optional(),
  biosVersion: text.optional(),
  releaseDate: label.optional(),
});

export const hardwareInformationSchema = z.object({
  system: systemInformationSchema.optional(),
  cpu: cpuInformationSchema.optional(),
  baseboard: baseboardInformationSchema.optional(),
  memory: z
    .object({ totalBytes: byteCount.optional(), modules: z.array(memoryModuleSchema).max(1024).optional() })
    .optional(),
  disks: z.array(diskInformationSchema).max(1024).optional(),
  fileSystems: z.array(fileSystemInformationSchema).max(1024).optional(),
  bios: biosInformationSchema.optional(),
  /** the sensors as the inventory last read them (the current reading is usage.temperatureCelsius) */
  temperature: z
    .object({
      mainCelsius: temperatureCelsius.optional(),
      maxCelsius: temperatureCelsius.optional(),
      coresCelsius: z.array(temperatureCelsius).max(65_536).optional(),
      chipsetCelsius: temperatureCelsius.optional(),
    })
    .optional(),
});

export const networkInterfaceSchema = z.object({
  interfaceName: label.optional(),
  ipAddressV4: z.array(label).max(1024).optional(),
  ipAddressV6: z.array(label).max(1024).optional(),
  mac: label.optional(),
  /** `wired`, `wireless` or `virtual` */
  type: label.optional(),
  /** the kernel's operstate: `up`, `down`, ... */
  operState: label.optional(),
  mtu: z.int().min(0).max(1_000_000).optional(),
  speedMbps: z.number().min(0).max(10_000_000).optional(),
  /** holds the default route */
  isDefault: z.boolean().optional(),
});

export const storageUsageSchema = z
  .object({
    mount: text,
    totalBytes: byteCount,
    usedBytes: byteCount,
  })
  .refine((s) => s.usedBytes <= s.totalBytes, { message: 'usedBytes must not exceed totalBytes', path: ['usedBytes'] });

/** Resource usage as last reported; the server derives it from `metrics` messages (see usageFromMetrics). */
export const deviceUsageSchema = z.object({
  cpuPercent: percent.optional(),
  memoryUsedBytes: byteCount.optional(),
  memoryTotalBytes: byteCount.optional(),
  storage: z.array(storageUsageSchema).max(1024).optional(),
  temperatureCelsius: temperatureCelsius.optional(),
});

/** Which parts of the device the agent manages; `os: false` on a customer's own Linux (OSReady=Unsupported). */
export const managedFeaturesSchema = z.object({
  os: z.boolean().optional(),
  osUpgrade: z.boolean().optional(),
  ssh: z.boolean().optional(),
  usb: z.boolean().optional(),
  avahi: z.boolean().optional(),
  network: z.boolean().optional(),
  pods: z.boolean().optional(),
});

/** `status.deviceInfo` of a Device (reference.md §1 DeviceInfo, lowerCamel). */
export const deviceInfoSchema = z.object({
  /** the OS version actually running (the reported half of an upgrade) */
  osVersion: label.optional(),
  /** the device type id the agent was installed as, e.g. `qemu-x86-64` */
  deviceType: label.optional(),
  /** `amd64`, `arm64`, ... */
  architecture: label.optional(),
  /** `generic`, `raspberrypi`, ... */
  hardware: label.optional(),
  /** `Linux` */
  operatingSystem: label.optional(),
  kernelVersion: label.optional(),
  /** the distribution, e.g. `Debian GNU/Linux 12 (bookworm)` */
  osImage: text.optional(),
  hardwareInformation: hardwareInformationSchema.optional(),
  /** keyed by interface name */
  networkInterfaces: boundedRecord(networkInterfaceSchema, 4096).optional(),
  /** derived by the server from `metrics`: a device cannot report it (see reportedDeviceInfoSchema) */
  usage: deviceUsageSchema.optional(),
  managedFeatures: managedFeaturesSchema.optional(),
});

/**
 * `deviceInfo` as a device reports it (status message, registration): everything but `usage`, which only the
 * server writes. Left out like any member the schema does not know, so a report carrying it is stored without it.
 */
export const reportedDeviceInfoSchema = deviceInfoSchema.omit({ usage: true });

export type SystemInformation = z.infer<typeof systemInformationSchema>;
export type BaseboardInformation = z.infer<typeof baseboardInformationSchema>;
export type MemoryModule = z.infer<typeof memoryModuleSchema>;
export type PartitionInformation = z.infer<typeof partitionInformationSchema>;
export type FileSystemInformation = z.infer<typeof fileSystemInformationSchema>;
export type CpuInformation = z.infer<typeof cpuInformationSchema>;
export type DiskInformation = z.infer<typeof diskInformationSchema>;
export type BiosInformation = z.infer<typeof biosInformationSchema>;
export type HardwareInformation = z.infer<typeof hardwareInformationSchema>;
export type NetworkInterface = z.infer<typeof networkInterfaceSchema>;
export type StorageUsage = z.infer<typeof storageUsageSchema>;
export type DeviceUsage = z.infer<typeof deviceUsageSchema>;
export type ManagedFeatures = z.infer<typeof managedFeaturesSchema>;
export type DeviceInfo = z.infer<typeof deviceInfoSchema>;
export type ReportedDeviceInfo = z.infer<typeof reportedDeviceInfoSchema>;
