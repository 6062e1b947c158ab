import { loadavg, networkInterfaces, uptime } from 'node:os';
import type { NetworkInterfaceInfo } from 'node:os';
import { readBios, readCpu, readDisks, readOsRelease, readSystem } from './device-facts.js';
import type { BiosFacts, CpuFacts, DiskFacts, OsFacts, SystemModelFacts } from './device-facts.js';
import { collectInventory, defaultCollectorCommand } from './inventory/collect-inventory.js';
import type { CollectorCommand } from './inventory/collect-inventory.js';
import type { InventoryDeviceInfo } from './inventory/inventory-from-system-information.js';
import { cpuLoadMeter, readFilesystems, readMemory, readTemperature } from './usage-facts.js';
import type { FilesystemFacts, MemoryFacts } from './usage-facts.js';

/** The raw facts device info is made of (read rarely: every few minutes). */
export interface DeviceFacts {
  os?: OsFacts;
  system?: SystemModelFacts;
  cpu?: CpuFacts;
  memoryTotalBytes?: number;
  disks?: DiskFacts[];
  bios?: BiosFacts;
  /** node's view: every address of every interface that has one */
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** The raw facts of one metrics sample. */
export interface UsageFacts {
  cpuPercent?: number;
  memory?: MemoryFacts;
  filesystems?: FilesystemFacts[];
  temperatureCelsius?: number | null;
  uptimeSeconds: number;
  load1: number;
}

/** Where the facts come from: the real machine in production and tests alike. */
export interface SystemFactsSource {
  deviceFacts(): Promise<DeviceFacts>;
  usageFacts(): Promise<UsageFacts>;
  /**
   * The full inventory (systeminformation, in a short-lived collector process); absent where the source has
   * none, and then device info comes from deviceFacts alone.
   */
  inventory?(): Promise<InventoryDeviceInfo>;
}

export interface SystemFactsOptions {
  /** how to start the inventory collector; default the one beside this code (see defaultCollectorCommand) */
  collector?: CollectorCommand;
}

/**
 * Reads the usage metrics and the quick device facts from /proc, /sys, /etc/os-release and node:os, in the
 * agent's own process, with no child processes: systeminformation's currentLoad, mem, fsSize and cpuTemperature
 * would add ~7 MiB to the agent and start about ten processes per sample (df, sensors, shell loops; measured on
 * Debian 12, systeminformation 5.33). The full inventory comes from systeminformation in a collector
 * process that exits once it has answered (inventory/), so the library never stays resident. A fact that cannot
 * be read is left out. The CPU load is measured between two samples, so one source is kept for the life of the
 * agent.
 */
export function systemFacts(options: SystemFactsOptions = {}): SystemFactsSource {
  const cpuLoad = cpuLoadMeter();
  const collector = options.collector ?? defaultCollectorCommand();
  return {
    ...(collector === undefined ? {} : { inventory: () => collectInventory({ command: collector }) }),
    async deviceFacts() {
      const [os, system, cpu, disks, bios] = await Promise.all([
        optional(readOsRelease()),
        optional(readSystem()),
        optional(readCpu()),
        optional(readDisks()),
        optional(readBios()),
      ]);
      const facts: DeviceFacts = { interfaces: networkInterfaces(), memoryTotalBytes: (await readMemory()).total };
      if (os !== undefined) facts.os = os;
      if (system !== undefined) facts.system = system;
      if (cpu !== undefined) facts.cpu = cpu;
      if (disks !== undefined) facts.disks = disks;
      if (bios !== undefined) facts.bios = bios;
      return facts;
    },

    async usageFacts() {
      const [cpuPercent, memory, filesystems, temperature] = await Promise.all([
        optional(cpuLoad.percent()),
        optional(readMemory()),
        optional(readFilesystems()),
        optional(readTemperature()),
      ]);
      const facts: UsageFacts = { uptimeSeconds: uptime(), load1: loadavg()[0] ?? 0 };
      if (cpuPercent !== undefined) facts.cpuPercent = cpuPercent;
      if (memory !== undefined) facts.memory = memory;
      if (filesystems !== undefined) facts.filesystems = filesystems;
      if (temperature !== undefined) facts.temperatureCelsius = temperature;
      return facts;
    },
  };
}

const optional = <T>(read: Promise<T>): Promise<T | undefined> => read.catch(() => undefined);
