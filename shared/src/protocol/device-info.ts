import { z } from 'zod';

// Every member is optional, as in the proto3 JSON this mirrors: a record may hold partial information
// (an agent that cannot read a fact leaves it out; a device created through the API has none yet).

const nonNegative = z.number().nonnegative();

export const systemInformationSchema = z.object({
  manufacturer: z.string().optional(),
  productName: z.string().optional(),
  version: z.string().optional(),
  serialNumber: z.string().optional(),
});

export const cpuInformationSchema = z.object({
  model: z.string().optional(),
  cores: z.int().nonnegative().optional(),
  speedGHz: nonNegative.optional(),
});

export const diskInformationSchema = z.object({
  name: z.string().optional(),
  type: z.string().optional(),
  sizeBytes: nonNegative.optional(),
  model: z.string().optional(),
});

export const biosInformationSchema = z.object({
  vendor: z.string().optional(),
  biosVersion: z.string().optional(),
  releaseDate: z.string().optional(),
});

export const hardwareInformationSchema = z.object({
  system: systemInformationSchema.optional(),
  cpu: cpuInformationSchema.optional(),
  memory: z.object({ totalBytes: nonNegative.optional() }).optional(),
  disks: z.array(diskInformationSchema).optional(),
  bios: biosInformationSchema.optional(),
});

export const networkInterfaceSchema = z.object({
  interfaceName: z.string().optional(),
  ipAddressV4: z.array(z.string()).optional(),
  ipAddressV6: z.array(z.string()).optional(),
  mac: z.string().optional(),
});

export const storageUsageSchema = z.object({
  mount: z.string(),
  totalBytes: nonNegative,
  usedBytes: nonNegative,
});

/** Resource usage as last reported; the server derives it from `metrics` messages (see usageFromMetrics). */
export const deviceUsageSchema = z.object({
  cpuPercent: nonNegative.optional(),
  memoryUsedBytes: nonNegative.optional(),
  memoryTotalBytes: nonNegative.optional(),
  storage: z.array(storageUsageSchema).optional(),
  temperatureCelsius: z.number().optional(),
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
  osVersion: z.string().optional(),
  /** the device type id the agent was installed as, e.g. `qemu-x86-64` */
  deviceType: z.string().optional(),
  /** `amd64`, `arm64`, ... */
  architecture: z.string().optional(),
  /** `generic`, `raspberrypi`, ... */
  hardware: z.string().optional(),
  /** `Linux` */
  operatingSystem: z.string().optional(),
  kernelVersion: z.string().optional(),
  /** the distribution, e.g. `Debian GNU/Linux 12 (bookworm)` */
  osImage: z.string().optional(),
  hardwareInformation: hardwareInformationSchema.optional(),
  /** keyed by interface name */
  networkInterfaces: z.record(z.string(), networkInterfaceSchema).optional(),
  usage: deviceUsageSchema.optional(),
  managedFeatures: managedFeaturesSchema.optional(),
});

export type SystemInformation = z.infer<typeof systemInformationSchema>;
export type CpuInformation = z.infer<typeof cpuInformationSchema>;
export type DiskInformation = z.infer<typeof diskInformationSchema>;
export type BiosInformation = z.infer<typeof biosInformationSchema>;
export type HardwareInformation = z.infer<typeof hardwareInformationSchema>;
export type NetworkInterface = z.infer<typeof networkInterfaceSchema>;
export type StorageUsage = z.infer<typeof storageUsageSchema>;
export type DeviceUsage = z.infer<typeof deviceUsageSchema>;
export type ManagedFeatures = z.infer<typeof managedFeaturesSchema>;
export type DeviceInfo = z.infer<typeof deviceInfoSchema>;
