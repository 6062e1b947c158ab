import { loadavg, networkInterfaces, uptime } from 'node:os';
import type { NetworkInterfaceInfo } from 'node:os';
import { readBios, readCpu, readDisks, readOsRelease, readSystem } from './device-facts.js';
import type { BiosFacts, CpuFacts, DiskFacts, OsFacts, SystemModelFacts } from './device-facts.js';
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
}

/**
 * Reads the machine's facts from /proc, /sys, /etc/os-release and node:os: no child processes and no
 * system-information library (a library reading everything costs an idle agent ~18 MiB and several
 * processes a minute). A fact that cannot be read is left out. The CPU load is measured between two samples,
 * so one source is kept for the life of the agent.
 */
export function systemFacts(): SystemFactsSource {
  const cpuLoad = cpuLoadMeter();
  return {
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
