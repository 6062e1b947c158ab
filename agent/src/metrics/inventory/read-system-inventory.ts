import { networkInterfaces } from 'node:os';
import * as si from 'systeminformation';
import type { SystemInventoryReading } from './inventory-from-system-information.js';

/**
 * Reads the inventory with systeminformation: DMI, lsblk, /proc, /sys and the sensors (it runs commands such as
 * lsblk and dmidecode, which is why only the short-lived collector process loads it).
 */
export async function readSystemInventory(): Promise<SystemInventoryReading> {
  const [
    system,
    baseboard,
    bios,
    chassis,
    cpu,
    memory,
    memoryLayout,
    diskLayout,
    blockDevices,
    fileSystems,
    interfaces,
    os,
    temperature,
  ] = await Promise.all([
    si.system(),
    si.baseboard(),
    si.bios(),
    si.chassis(),
    si.cpu(),
    si.mem(),
    si.memLayout(),
    si.diskLayout(),
    si.blockDevices(),
    si.fsSize(),
    si.networkInterfaces(),
    si.osInfo(),
    si.cpuTemperature(),
  ]);
  return {
    system,
    baseboard,
    bios,
    chassis,
    cpu,
    memoryTotalBytes: memory.total,
    memoryLayout,
    diskLayout,
    blockDevices,
    fileSystems,
    // a single interface comes back bare, a list on every other call shape
    networkInterfaces: Array.isArray(interfaces) ? interfaces : [interfaces],
    os,
    temperature,
    nodeInterfaces: networkInterfaces(),
  };
}
