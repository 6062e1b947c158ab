import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cpuFactsOf,
  isoDate,
  parseOsRelease,
  readBios,
  readDisks,
  readOsRelease,
  readSystem,
} from '../../src/metrics/device-facts.js';
import { systemFacts } from '../../src/metrics/system-facts.js';
import {
  cpuLoadMeter,
  parseMounts,
  readFilesystems,
  readMemory,
  readTemperature,
} from '../../src/metrics/usage-facts.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** Writes `files` (path relative to the root -> content) under a fresh folder, like a small /sys or /etc. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await tempDir();
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('device facts', () => {
  it('reads the distribution from os-release, quoted or not', async () => {
    const root = await tree({
      'os-release':
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n',
    });
    const os = await readOsRelease([join(root, 'missing'), join(root, 'os-release')]);
    expect(os).toMatchObject({ distro: 'Debian GNU/Linux', release: '12', codename: 'bookworm' });
    expect(os.kernel).toBeTruthy();
    expect(parseOsRelease(`NAME='My OS'\nBAD LINE\nID=my\nVERSION="1 \\"x\\""`)).toEqual(
      new Map([
        ['NAME', 'My OS'],
        ['ID', 'my'],
        ['VERSION', '1 "x"'],
      ]),
    );
  });

  it('reads maker, model and firmware from DMI, dropping placeholders', async () => {
    const root = await tree({
      'dmi/sys_vendor': 'QEMU\n',
      'dmi/product_name': 'Standard PC (Q35 + ICH9, 2009)\n',
      'dmi/product_version': 'pc-q35-8.2\n',
      'dmi/product_serial': 'To Be Filled By O.E.M.\n',
      'dmi/bios_vendor': 'SeaBIOS\n',
      'dmi/bios_version': '1.16.3\n',
      'dmi/bios_date': '04/01/2014\n',
    });
    expect(await readSystem(join(root, 'dmi'), join(root, 'no-device-tree'))).toEqual({
      manufacturer: 'QEMU',
      model: 'Standard PC (Q35 + ICH9, 2009)',
      version: 'pc-q35-8.2',
      serial: '',
    });
    expect(await readBios(join(root, 'dmi'))).toEqual({
      vendor: 'SeaBIOS',
      version: '1.16.3',
      releaseDate: '2014-04-01',
    });
    expect(isoDate('2014-04-01')).toBe('2014-04-01');
  });

  it('falls back to the device tree on boards without DMI', async () => {
    const root = await tree({
      'dt/model': 'Raspberry Pi 4 Model B Rev 1.4\0',
      'dt/serial-number': '10000000abcdef\0',
    });
    expect(await readSystem(join(root, 'no-dmi'), join(root, 'dt'))).toEqual({
      manufacturer: '',
      model: 'Raspberry Pi 4 Model B Rev 1.4',
      version: '',
      serial: '10000000abcdef',
    });
    expect(await readSystem(join(root, 'no-dmi'), join(root, 'no-dt'))).toBeUndefined();
    expect(await readBios(join(root, 'no-dmi'))).toBeUndefined();
  });

  it('splits the CPU model string into vendor, brand and speed', () => {
    expect(cpuFactsOf('Intel(R) Xeon(R) CPU @ 2.20GHz', 2200, 4)).toEqual({
      manufacturer: 'Intel',
      brand: 'Xeon',
      cores: 4,
      speed: 2.2,
    });
    expect(cpuFactsOf('AMD EPYC 7B12', 2249, 2)).toEqual({
      manufacturer: 'AMD',
      brand: 'EPYC 7B12',
      cores: 2,
      speed: 2.25,
    });
    expect(cpuFactsOf('Cortex-A72', 1500, 4)).toEqual({ manufacturer: '', brand: 'Cortex-A72', cores: 4, speed: 1.5 });
  });

  it('lists whole disks with their size, model and kind', async () => {
    const root = await tree({
      'block/vda/size': '16777216\n',
      'block/vda/queue/rotational': '1\n',
      'block/sda/size': '1000\n',
      'block/sda/device/model': 'Samsung SSD 870 \n',
      'block/sda/device/vendor': 'ATA     \n',
      'block/sda/queue/rotational': '0\n',
      'block/nvme0n1/size': '2000\n',
      'block/nvme0n1/device/model': 'WD Blue SN570\n',
      'block/vda/device/vendor': '0x1af4\n',
      'block/loop0/size': '100\n',
      'block/sr0/size': '0\n',
      'block/sdb/size': '0\n',
    });
    expect(await readDisks(join(root, 'block'))).toEqual([
      { device: '/dev/nvme0n1', name: 'WD Blue SN570', type: 'NVMe', size: 2000 * 512, vendor: '' },
      { device: '/dev/sda', name: 'Samsung SSD 870', type: 'SSD', size: 1000 * 512, vendor: 'ATA' },
      { device: '/dev/vda', name: '', type: 'HD', size: 16777216 * 512, vendor: '' },
    ]);
  });
});

describe('usage facts', () => {
  it('measures CPU use between samples, the first one over a short window', async () => {
    const samples = [
      { busy: 100, idle: 900 },
      { busy: 150, idle: 950 },
      { busy: 150, idle: 1050 },
    ];
    const meter = cpuLoadMeter(() => samples.shift() ?? { busy: 150, idle: 1050 }, 1);
    expect(await meter.percent()).toBe(50);
    expect(await meter.percent()).toBe(0);
    // no time passed: the last figure again rather than a division by zero
    expect(await meter.percent()).toBe(0);
  });

  it('reads total and available memory from meminfo', async () => {
    const root = await tree({
      meminfo: 'MemTotal:        2000 kB\nMemFree:          100 kB\nMemAvailable:     700 kB\n',
    });
    expect(await readMemory(join(root, 'meminfo'))).toEqual({ total: 2000 * 1024, available: 700 * 1024 });
    const fallback = await readMemory(join(root, 'missing'));
    expect(fallback.total).toBeGreaterThan(0);
  });

  it('sizes the mounted filesystems, skipping network mounts and those without a size', async () => {
    const dir = await tempDir();
    const mounts = await tree({
      mounts: [
        `/dev/root / ext4 rw,relatime 0 0`,
        `proc /proc proc rw 0 0`,
        `server:/export /mnt/nfs nfs4 rw 0 0`,
        `/dev/vdb ${dir.replaceAll(' ', '\\040')} ext4 rw 0 0`,
      ].join('\n'),
    });
    const filesystems = await readFilesystems(join(mounts, 'mounts'));
    expect(filesystems.map((f) => f.mount)).toEqual(['/', dir]);
    for (const fs of filesystems) {
      expect(fs.size).toBeGreaterThan(0);
      expect(fs.used).toBeGreaterThanOrEqual(0);
      expect(fs.used).toBeLessThanOrEqual(fs.size);
    }
    expect(parseMounts('/dev/sda1 /media/my\\040disk vfat rw 0 0\n')).toEqual([
      { fs: '/dev/sda1', mount: '/media/my disk', type: 'vfat' },
    ]);
  });

  it('takes the package sensor, else the mean of the cores, else a CPU thermal zone', async () => {
    const withPackage = await tree({
      'hwmon/hwmon0/temp1_label': 'Package id 0\n',
      'hwmon/hwmon0/temp1_input': '52000\n',
      'hwmon/hwmon0/temp2_label': 'Core 0\n',
      'hwmon/hwmon0/temp2_input': '50000\n',
    });
    expect(await readTemperature(withPackage)).toBe(52);
    const coresOnly = await tree({
      'hwmon/hwmon1/temp2_label': 'Core 0\n',
      'hwmon/hwmon1/temp2_input': '50000\n',
      'hwmon/hwmon1/temp3_label': 'Core 1\n',
      'hwmon/hwmon1/temp3_input': '51000\n',
    });
    expect(await readTemperature(coresOnly)).toBe(50.5);
    const board = await tree({
      'thermal/thermal_zone0/type': 'acpitz\n',
      'thermal/thermal_zone0/temp': '27800\n',
      'thermal/thermal_zone1/type': 'cpu-thermal\n',
      'thermal/thermal_zone1/temp': '48312\n',
    });
    expect(await readTemperature(board)).toBe(48.3);
    expect(await readTemperature(await tempDir())).toBeNull();
  });
});

describe('systemFacts', () => {
  it('reads this machine', async () => {
    const facts = systemFacts();
    const device = await facts.deviceFacts();
    expect(device.os?.kernel).toBeTruthy();
    expect(device.cpu?.cores).toBeGreaterThan(0);
    expect(device.memoryTotalBytes).toBeGreaterThan(0);
    const usage = await facts.usageFacts();
    expect(usage.cpuPercent).toBeGreaterThanOrEqual(0);
    expect(usage.cpuPercent).toBeLessThanOrEqual(100);
    expect(usage.memory?.total).toBeGreaterThan(0);
    expect(usage.filesystems?.length).toBeGreaterThan(0);
    expect(usage.uptimeSeconds).toBeGreaterThan(0);
  });
});
