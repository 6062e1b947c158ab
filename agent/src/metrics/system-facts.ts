import { loadavg, networkInterfaces } from 'node:os';
import type { NetworkInterfaceInfo } from 'node:os';
import si from 'systeminformation';
import type { Systeminformation } from 'systeminformation';

/** The raw facts device info is made of (read rarely: some take a second). */
export interface DeviceFacts {
  os?: Pick<Systeminformation.OsData, 'platform' | 'distro' | 'release' | 'codename' | 'kernel' | 'arch'>;
  system?: Pick<Systeminformation.SystemData, 'manufacturer' | 'model' | 'version' | 'serial' | 'raspberry'>;
  cpu?: Pick<Systeminformation.CpuData, 'manufacturer' | 'brand' | 'cores' | 'speed'>;
  memoryTotalBytes?: number;
  disks?: Pick<Systeminformation.DiskLayoutData, 'device' | 'name' | 'type' | 'size' | 'vendor'>[];
  bios?: Pick<Systeminformation.BiosData, 'vendor' | 'version' | 'releaseDate'>;
  /** node's view: every address of every interface that has one */
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** The raw facts of one metrics sample. */
export interface UsageFacts {
  cpuPercent?: number;
  memory?: Pick<Systeminformation.MemData, 'total' | 'available'>;
  filesystems?: Pick<Systeminformation.FsSizeData, 'fs' | 'type' | 'size' | 'used' | 'mount'>[];
  temperatureCelsius?: number | null;
  uptimeSeconds: number;
  load1: number;
}

/** Where the facts come from: the real machine in production and tests alike. */
export interface SystemFactsSource {
  deviceFacts(): Promise<DeviceFacts>;
  usageFacts(): Promise<UsageFacts>;
}

/** Reads facts with systeminformation and node:os; a fact that cannot be read is left out. */
export const systemFacts: SystemFactsSource = {
  async deviceFacts() {
    const [os, system, cpu, memory, disks, bios] = await Promise.all([
      optional(si.osInfo()),
      optional(si.system()),
      optional(si.cpu()),
      optional(si.mem()),
      optional(si.diskLayout()),
      optional(si.bios()),
    ]);
    const facts: DeviceFacts = { interfaces: networkInterfaces() };
    if (os !== undefined) facts.os = os;
    if (system !== undefined) facts.system = system;
    if (cpu !== undefined) facts.cpu = cpu;
    if (memory !== undefined) facts.memoryTotalBytes = memory.total;
    if (disks !== undefined) facts.disks = disks;
    if (bios !== undefined) facts.bios = bios;
    return facts;
  },

  async usageFacts() {
    const [load, memory, filesystems, temperature] = await Promise.all([
      optional(si.currentLoad()),
      optional(si.mem()),
      optional(si.fsSize()),
      optional(si.cpuTemperature()),
    ]);
    const facts: UsageFacts = { uptimeSeconds: si.time().uptime, load1: loadavg()[0] ?? 0 };
    if (load !== undefined) facts.cpuPercent = load.currentLoad;
    if (memory !== undefined) facts.memory = memory;
    if (filesystems !== undefined) facts.filesystems = filesystems;
    if (temperature !== undefined) facts.temperatureCelsius = temperature.main;
    return facts;
  },
};

const optional = <T>(read: Promise<T>): Promise<T | undefined> => read.catch(() => undefined);
