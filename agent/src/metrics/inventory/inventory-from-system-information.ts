import type { NetworkInterfaceInfo } from 'node:os';
import type {
  DiskInformation,
  FileSystemInformation,
  HardwareInformation,
  MemoryModule,
  NetworkInterface,
  ReportedDeviceInfo,
} from '@outpost/shared';
import type { Systeminformation } from 'systeminformation';
import { architectureOf, hardwareOf } from '../device-info.js';
import { withoutPlaceholder } from '../device-facts.js';

/** What the collector reads with systeminformation (plus node's full list of addresses, which si cuts to one). */
export interface SystemInventoryReading {
  system: Systeminformation.SystemData;
  baseboard: Systeminformation.BaseboardData;
  bios: Systeminformation.BiosData;
  chassis: Systeminformation.ChassisData;
  cpu: Systeminformation.CpuData;
  memoryTotalBytes: number;
  memoryLayout: Systeminformation.MemLayoutData[];
  diskLayout: Systeminformation.DiskLayoutData[];
  blockDevices: Systeminformation.BlockDevicesData[];
  fileSystems: Systeminformation.FsSizeData[];
  networkInterfaces: Systeminformation.NetworkInterfacesData[];
  os: Systeminformation.OsData;
  temperature: Systeminformation.CpuTemperatureData;
  nodeInterfaces: NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** The device's inventory: the part of deviceInfo the machine tells (identity and managedFeatures are the agent's). */
export type InventoryDeviceInfo = Omit<ReportedDeviceInfo, 'deviceType' | 'managedFeatures' | 'osVersion'>;

// the protocol's bounds (shared/src/protocol/bounds.ts): a value past them would cost the whole report
const LABEL = 256;
const TEXT = 4096;
const MAX_ITEMS = 1024;

/** Maps a systeminformation reading onto status.deviceInfo, leaving out what the machine does not tell. */
export function inventoryFromSystemInformation(reading: SystemInventoryReading): InventoryDeviceInfo {
  const { os } = reading;
  const osImage = [os.distro, os.release, os.codename ? `(${os.codename})` : ''].filter(Boolean).join(' ');
  const info: InventoryDeviceInfo = {
    architecture: clip(architectureOf(os.arch), LABEL),
    hardware: hardwareOf(reading.system.model),
    operatingSystem: os.platform === 'linux' ? 'Linux' : clip(os.platform, LABEL),
    hardwareInformation: hardwareInformationOf(reading),
    networkInterfaces: networkInterfacesOf(reading.networkInterfaces, reading.nodeInterfaces),
  };
  if (os.kernel) info.kernelVersion = clip(os.kernel, LABEL);
  if (osImage) info.osImage = clip(osImage, TEXT);
  return info;
}

function hardwareInformationOf(reading: SystemInventoryReading): HardwareInformation {
  const { system, baseboard, bios, chassis, cpu, temperature } = reading;
  const hardware: HardwareInformation = {
    system: compact({
      manufacturer: text(system.manufacturer),
      productName: text(system.model),
      version: text(system.version),
      serialNumber: text(system.serial),
      configuration: compact({ chassis: label(chassis.type), uuid: label(system.uuid), skuNumber: label(system.sku) }),
      virtual: system.virtual,
      virtualHost: system.virtual ? label(system.virtualHost) : undefined,
    }),
    cpu: compact({
      model: text([cpu.manufacturer, cpu.brand].filter(Boolean).join(' ')),
      cores: cpu.cores,
      physicalCores: cpu.physicalCores,
      processors: cpu.processors,
      speedGHz: positive(cpu.speedMax) ?? positive(cpu.speed),
    }),
    memory: compact({
      totalBytes: wholeBytes(reading.memoryTotalBytes),
      modules: reading.memoryLayout.slice(0, MAX_ITEMS).map(memoryModuleOf),
    }),
    disks: disksOf(reading.blockDevices, reading.diskLayout),
    fileSystems: reading.fileSystems.slice(0, MAX_ITEMS).map((fs): FileSystemInformation =>
      compact({
        device: text(fs.fs),
        type: label(fs.type),
        mount: text(fs.mount),
        sizeBytes: wholeBytes(fs.size),
        readOnly: typeof fs.rw === 'boolean' ? !fs.rw : undefined,
      }),
    ),
  };
  const board = compact({
    manufacturer: text(baseboard.manufacturer),
    model: text(baseboard.model),
    version: text(baseboard.version),
    serialNumber: text(baseboard.serial),
    memoryMaxBytes: wholeBytes(baseboard.memMax),
    memorySlots: baseboard.memSlots ?? undefined,
  });
  if (Object.keys(board).length > 0) hardware.baseboard = board;
  if (bios.vendor || bios.version) {
    hardware.bios = compact({
      vendor: text(bios.vendor),
      biosVersion: text(bios.version),
      releaseDate: label(bios.releaseDate),
    });
  }
  const sensors = compact({
    mainCelsius: celsius(temperature.main),
    maxCelsius: celsius(temperature.max),
    coresCelsius: temperature.cores.map(celsius).filter((t): t is number => t !== undefined),
    chipsetCelsius: celsius(temperature.chipset),
  });
  if (Object.keys(sensors).length > 0) hardware.temperature = sensors;
  return hardware;
}

function memoryModuleOf(module: Systeminformation.MemLayoutData): MemoryModule {
  return compact({
    sizeBytes: wholeBytes(module.size),
    bank: label(module.bank),
    type: label(module.type),
    clockSpeedMHz: positive(module.clockSpeed),
    formFactor: label(module.formFactor),
    partNumber: label(module.partNum),
    serialNumber: label(module.serialNum),
  });
}

/** Whole disks from lsblk, with their partitions and what the disk layout adds (vendor, interface, kind). */
function disksOf(
  blockDevices: Systeminformation.BlockDevicesData[],
  layout: Systeminformation.DiskLayoutData[],
): DiskInformation[] {
  const disks = blockDevices.filter((d) => d.type === 'disk' && d.size > 0 && !/^(loop|ram|zram|nbd|fd)/.test(d.name));
  const partitions = blockDevices.filter((d) => d.type === 'part');
  return disks.slice(0, MAX_ITEMS).map((disk) => {
    const device = `/dev/${disk.name}`;
    const details = layout.find((l) => l.device === device);
    return compact({
      name: text(device),
      type: label(details?.type ?? (disk.physical === 'HDD' ? 'HD' : disk.physical)),
      sizeBytes: wholeBytes(disk.size),
      model: text(disk.model || details?.name),
      vendor: text(details?.vendor),
      serialNumber: text(disk.serial || details?.serialNum),
      interfaceType: label(details?.interfaceType || disk.protocol),
      removable: disk.removable,
      partitions: partitions
        .filter((p) => parentDiskName(p.name, disks) === disk.name)
        .slice(0, MAX_ITEMS)
        .map((p) =>
          compact({
            name: label(p.name),
            sizeBytes: wholeBytes(p.size),
            fsType: label(p.fsType),
            mountpoint: text(p.mount),
            label: label(p.label),
            uuid: label(p.uuid),
          }),
        ),
    });
  });
}

/** sda1 -> sda, nvme0n1p2 -> nvme0n1, mmcblk0p1 -> mmcblk0: the longest disk name the partition's starts with. */
function parentDiskName(partition: string, disks: Systeminformation.BlockDevicesData[]): string | undefined {
  let parent: string | undefined;
  for (const { name } of disks) {
    if (partition.startsWith(name) && partition !== name && name.length > (parent?.length ?? 0)) parent = name;
  }
  return parent;
}

/**
 * Every interface but loopback, keyed by name: all its addresses (node's list; systeminformation keeps one of
 * each family), its MAC, kind, state, MTU and speed.
 */
function networkInterfacesOf(
  interfaces: Systeminformation.NetworkInterfacesData[],
  nodeInterfaces: NodeJS.Dict<NetworkInterfaceInfo[]>,
): Record<string, NetworkInterface> {
  const result: Record<string, NetworkInterface> = {};
  // code-unit order, as the lean reader: localeCompare would load ICU collation data
  const sorted = [...interfaces].sort((a, b) => (a.iface < b.iface ? -1 : a.iface > b.iface ? 1 : 0));
  for (const nic of sorted.slice(0, MAX_ITEMS)) {
    if (nic.internal || nic.iface === '') continue;
    const addresses = nodeInterfaces[nic.iface] ?? [];
    const v4 = addresses.filter((a) => a.family === 'IPv4').map((a) => a.address);
    const v6 = addresses.filter((a) => a.family === 'IPv6').map((a) => a.address);
    if (addresses.length === 0) {
      if (nic.ip4) v4.push(nic.ip4);
      if (nic.ip6) v6.push(nic.ip6);
    }
    result[clip(nic.iface, LABEL)] = compact({
      interfaceName: clip(nic.iface, LABEL),
      ipAddressV4: v4.slice(0, MAX_ITEMS),
      ipAddressV6: v6.slice(0, MAX_ITEMS),
      mac: label(nic.mac),
      type: label(nic.type),
      operState: label(nic.operstate),
      mtu: typeof nic.mtu === 'number' && Number.isInteger(nic.mtu) && nic.mtu > 0 ? nic.mtu : undefined,
      speedMbps: positive(nic.speed),
      isDefault: nic.default,
    });
  }
  return result;
}

/** An object without its undefined members (exactOptionalPropertyTypes) and without empty arrays. */
function compact<T extends object>(value: { [K in keyof T]: T[K] | undefined }): T {
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || (Array.isArray(member) && member.length === 0)) continue;
    if (typeof member === 'object' && member !== null && !Array.isArray(member) && Object.keys(member).length === 0) {
      continue;
    }
    result[key] = member;
  }
  return result as T;
}

const clip = (value: string, max: number): string => (value.length > max ? value.slice(0, max) : value);

/** A meaningful string within `max` characters, or undefined for '', '-' and firmware placeholders. */
function bounded(value: string | null | undefined, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = withoutPlaceholder(value.trim());
  return trimmed === '' || trimmed === '-' ? undefined : clip(trimmed, max);
}

const label = (value: string | null | undefined): string | undefined => bounded(value, LABEL);
const text = (value: string | null | undefined): string | undefined => bounded(value, TEXT);

function positive(value: number | null | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function wholeBytes(value: number | null | undefined): number | undefined {
  const bytes = positive(value);
  return bytes !== undefined && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A sensor's reading; 0 and values outside what a sensor can read stand for "none". */
function celsius(value: number | null | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value !== 0 && value > -273.15 && value <= 1000
    ? value
    : undefined;
}
