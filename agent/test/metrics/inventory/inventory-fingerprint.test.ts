import { mkdir, writeFile } from 'node:fs/promises';
import type { NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInventoryFingerprint } from '../../../src/metrics/inventory/inventory-fingerprint.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();

const MOUNTS = [
  '/dev/sda2 / ext4 rw,relatime 0 0',
  'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0',
  '/dev/sda1 /boot/efi vfat rw,relatime,fmask=0077 0 0',
].join('\n');

const eth0 = (address: string): NetworkInterfaceInfo => ({
  address,
  netmask: '255.255.255.0',
  family: 'IPv4',
  mac: '02:00:00:00:00:01',
  internal: false,
  cidr: `${address}/24`,
});

/** A small /proc/self/mounts and /sys/block the test changes as a device would. */
async function machine() {
  const root = await tempDir();
  const mounts = join(root, 'mounts');
  const sysBlock = join(root, 'block');
  await writeFile(mounts, `${MOUNTS}\n`);
  const disk = async (name: string, sectors: number) => {
    await mkdir(join(sysBlock, name), { recursive: true });
    await writeFile(join(sysBlock, name, 'size'), `${sectors}\n`);
  };
  await disk('sda', 62_533_296);
  let interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = { eth0: [eth0('10.0.0.5')] };
  return {
    read: () => readInventoryFingerprint({ mounts, sysBlock, interfaces: () => interfaces }),
    mount: (line: string) => writeFile(mounts, `${MOUNTS}\n${line}\n`),
    remountOptions: (options: string) => writeFile(mounts, `${MOUNTS.replace('rw,relatime 0 0', `${options} 0 0`)}\n`),
    disk,
    setInterfaces: (next: NodeJS.Dict<NetworkInterfaceInfo[]>) => {
      interfaces = next;
    },
  };
}

describe('readInventoryFingerprint', () => {
  it('is the same while nothing changes', async () => {
    const device = await machine();
    expect(await device.read()).toBe(await device.read());
  });

  it('changes when a file system is mounted', async () => {
    const device = await machine();
    const before = await device.read();
    await device.mount('/dev/sdb1 /media/usb vfat rw,relatime 0 0');
    expect(await device.read()).not.toBe(before);
  });

  it('changes when a file system turns read-only, but not for its other options', async () => {
    const device = await machine();
    const before = await device.read();
    await device.remountOptions('rw,noatime');
    expect(await device.read()).toBe(before);
    await device.remountOptions('ro,relatime');
    expect(await device.read()).not.toBe(before);
  });

  it('changes when a disk is plugged in or resized', async () => {
    const device = await machine();
    const before = await device.read();
    await device.disk('sdb', 60_062_500);
    const plugged = await device.read();
    expect(plugged).not.toBe(before);
    await device.disk('sdb', 120_125_000);
    expect(await device.read()).not.toBe(plugged);
  });

  it('changes when an interface appears or its address changes', async () => {
    const device = await machine();
    const before = await device.read();
    device.setInterfaces({ eth0: [eth0('10.0.0.6')] });
    const readdressed = await device.read();
    expect(readdressed).not.toBe(before);
    device.setInterfaces({ eth0: [eth0('10.0.0.6')], wlan0: [] });
    expect(await device.read()).not.toBe(readdressed);
  });

  it('reads this machine without failing', async () => {
    const fingerprint = await readInventoryFingerprint();
    expect(fingerprint).toContain(' / ');
  });
});
