import { describe, expect, it } from 'vitest';
import { deviceInfoSchema, metricsSampleSchema, reportedStatusSchema } from '@outpost/shared';
import { deviceInfoFromFacts } from '../../src/metrics/device-info.js';
import { metricsSampleFromFacts } from '../../src/metrics/metrics-sample.js';
import { systemFacts } from '../../src/metrics/system-facts.js';
import type { DeviceFacts, UsageFacts } from '../../src/metrics/system-facts.js';

const facts: DeviceFacts = {
  os: {
    platform: 'linux',
    distro: 'Debian GNU/Linux',
    release: '12',
    codename: 'bookworm',
    kernel: '6.1.0-18-amd64',
    arch: 'x64',
  },
  system: { manufacturer: 'QEMU', model: 'Standard PC (Q35 + ICH9, 2009)', version: 'pc-q35-8.2', serial: '-' },
  cpu: { manufacturer: 'AMD', brand: 'EPYC', cores: 2, speed: 2.4 },
  memoryTotalBytes: 2_000_000_000,
  disks: [{ device: '/dev/vda', name: 'QEMU HARDDISK', type: 'HD', size: 8_000_000_000, vendor: '' }],
  bios: { vendor: 'SeaBIOS', version: '1.16', releaseDate: '2014-04-01' },
  interfaces: {
    lo: [
      {
        address: '127.0.0.1',
        netmask: '255.0.0.0',
        family: 'IPv4',
        mac: '00:00:00:00:00:00',
        internal: true,
        cidr: '127.0.0.1/8',
      },
    ],
    eth0: [
      {
        address: '10.0.2.15',
        netmask: '255.255.255.0',
        family: 'IPv4',
        mac: '52:54:00:12:34:56',
        internal: false,
        cidr: '10.0.2.15/24',
      },
      {
        address: 'fe80::1',
        netmask: 'ffff:ffff:ffff:ffff::',
        family: 'IPv6',
        mac: '52:54:00:12:34:56',
        internal: false,
        cidr: 'fe80::1/64',
        scopeid: 2,
      },
      {
        address: 'fd00::15',
        netmask: 'ffff:ffff:ffff:ffff::',
        family: 'IPv6',
        mac: '52:54:00:12:34:56',
        internal: false,
        cidr: 'fd00::15/64',
        scopeid: 0,
      },
    ],
  },
};

describe('deviceInfoFromFacts', () => {
  it('describes the machine in the DeviceInfo shape', () => {
    const { deviceInfo, addresses } = deviceInfoFromFacts(facts, { deviceType: 'qemu-x86-64', managesOs: true });
    expect(deviceInfo).toEqual({
      deviceType: 'qemu-x86-64',
      architecture: 'amd64',
      hardware: 'generic',
      operatingSystem: 'Linux',
      kernelVersion: '6.1.0-18-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      hardwareInformation: {
        system: {
          manufacturer: 'QEMU',
          productName: 'Standard PC (Q35 + ICH9, 2009)',
          version: 'pc-q35-8.2',
          serialNumber: '',
        },
        cpu: { model: 'AMD EPYC', cores: 2, speedGHz: 2.4 },
        memory: { totalBytes: 2_000_000_000 },
        disks: [{ name: '/dev/vda', type: 'HD', sizeBytes: 8_000_000_000, model: 'QEMU HARDDISK' }],
        bios: { vendor: 'SeaBIOS', biosVersion: '1.16', releaseDate: '2014-04-01' },
      },
      networkInterfaces: {
        eth0: {
          interfaceName: 'eth0',
          ipAddressV4: ['10.0.2.15'],
          ipAddressV6: ['fe80::1', 'fd00::15'],
          mac: '52:54:00:12:34:56',
        },
      },
      managedFeatures: { os: true, osUpgrade: true },
    });
    // loopback and link-local addresses are no way to reach the device
    expect(addresses).toEqual([
      { address: '10.0.2.15', type: 'InternalIP' },
      { address: 'fd00::15', type: 'InternalIP' },
    ]);
    expect(deviceInfoSchema.parse(deviceInfo)).toEqual(deviceInfo);
  });

  it('marks OS management off on a customer machine', () => {
    const { deviceInfo } = deviceInfoFromFacts({ interfaces: {} }, { managesOs: false });
    expect(deviceInfo.managedFeatures).toEqual({ os: false, osUpgrade: false });
    expect(deviceInfo.deviceType).toBeUndefined();
  });

  it('reads this machine into a valid status', async () => {
    const live = deviceInfoFromFacts(await systemFacts().deviceFacts(), { managesOs: false });
    expect(reportedStatusSchema.safeParse(live).success).toBe(true);
    expect(live.deviceInfo.kernelVersion).toBeTruthy();
  });
});

describe('metricsSampleFromFacts', () => {
  it('counts memory that cannot be reclaimed as used and skips volatile filesystems', () => {
    const usage: UsageFacts = {
      cpuPercent: 12.3456,
      memory: { total: 1000, available: 700 },
      filesystems: [
        { fs: '/dev/vda2', type: 'ext4', size: 100, used: 40, mount: '/' },
        { fs: 'tmpfs', type: 'tmpfs', size: 50, used: 1, mount: '/run' },
        { fs: '/dev/vda4', type: 'ext4', size: 300, used: 10, mount: '/outpost' },
        { fs: '/dev/vda4', type: 'ext4', size: 300, used: 10, mount: '/outpost' },
      ],
      temperatureCelsius: null,
      uptimeSeconds: 99.7,
      load1: 0.251,
    };
    expect(metricsSampleFromFacts(usage, new Date('2025-01-01T00:00:00Z'))).toEqual({
      time: '2025-01-01T00:00:00.000Z',
      cpu: { usagePercent: 12.35 },
      memory: { totalBytes: 1000, usedBytes: 300 },
      storage: [
        { mount: '/', totalBytes: 100, usedBytes: 40 },
        { mount: '/outpost', totalBytes: 300, usedBytes: 10 },
      ],
      uptimeSeconds: 99,
      load1: 0.25,
    });
  });

  it('reads this machine into a valid metrics sample', async () => {
    const sample = metricsSampleFromFacts(await systemFacts().usageFacts(), new Date());
    expect(metricsSampleSchema.parse(sample)).toEqual(sample);
    expect(sample.memory.totalBytes).toBeGreaterThan(0);
  });
});
