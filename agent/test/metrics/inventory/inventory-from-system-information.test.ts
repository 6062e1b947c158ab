import { describe, expect, it } from 'vitest';
import { reportedDeviceInfoSchema } from '@outpost/shared';
import { inventoryFromSystemInformation } from '../../../src/metrics/inventory/inventory-from-system-information.js';
import type { SystemInventoryReading } from '../../../src/metrics/inventory/inventory-from-system-information.js';

// systeminformation answers null for a sensor it did not find, though its types say number
const NO_SENSOR = null as unknown as number;

/** What systeminformation 5 answers on a small PC with DMI, an NVMe disk, a USB stick and sensors. */
function pcReading(): SystemInventoryReading {
  return {
    system: {
      manufacturer: 'Intel Corporation',
      model: 'NUC8i5BEH',
      version: 'J72753-303',
      serial: 'G6BE9370046A',
      uuid: '8d1c5b6e-1f2a-4a6b-9d1e-000000000001',
      sku: 'BOXNUC8i5BEH',
      virtual: false,
    },
    baseboard: {
      manufacturer: 'Intel Corporation',
      model: 'NUC8BEB',
      version: 'J72693-306',
      serial: 'GEBE93600ABC',
      assetTag: 'Default string',
      memMax: 34359738368,
      memSlots: 2,
    },
    bios: {
      vendor: 'Intel Corp.',
      version: 'BECFL357.86A.0081.2020.0504.1834',
      releaseDate: '2020-05-04',
      revision: '5.13',
    },
    chassis: {
      manufacturer: 'Intel Corporation',
      model: '',
      type: 'Desktop',
      version: '2.0',
      serial: 'To be filled by O.E.M.',
      assetTag: '',
      sku: '',
    },
    cpu: {
      manufacturer: 'Intel',
      brand: 'Core™ i5-8259U',
      vendor: 'GenuineIntel',
      family: '6',
      model: '142',
      stepping: '10',
      revision: '',
      voltage: '',
      speed: 2.3,
      speedMin: 0.4,
      speedMax: 3.8,
      governor: 'powersave',
      cores: 8,
      physicalCores: 4,
      performanceCores: 4,
      efficiencyCores: 0,
      processors: 1,
      socket: 'BGA1528',
      flags: 'fpu vme',
      virtualization: true,
      cache: { l1d: 131072, l1i: 131072, l2: 1048576, l3: 6291456 },
    },
    memoryTotalBytes: 16_638_275_584,
    memoryLayout: [
      {
        size: 8589934592,
        bank: 'BANK 0',
        type: 'DDR4',
        ecc: false,
        clockSpeed: 2400,
        formFactor: 'SODIMM',
        partNum: 'CT8G4SFS824A.C8FE',
        serialNum: '1C2D3E4F',
        voltageConfigured: 1.2,
        voltageMin: 1.2,
        voltageMax: 1.2,
      },
      {
        size: 8589934592,
        bank: 'BANK 2',
        type: 'DDR4',
        ecc: false,
        clockSpeed: 2400,
        formFactor: 'SODIMM',
        partNum: 'CT8G4SFS824A.C8FE',
        serialNum: '00000000',
        voltageConfigured: 1.2,
        voltageMin: 1.2,
        voltageMax: 1.2,
      },
    ],
    diskLayout: [
      {
        device: '/dev/nvme0n1',
        type: 'NVMe',
        name: 'Samsung SSD 970 EVO Plus 500GB',
        vendor: 'Samsung',
        size: 500107862016,
        bytesPerSector: 512,
        totalCylinders: 0,
        totalHeads: 0,
        totalSectors: 0,
        totalTracks: 0,
        tracksPerCylinder: 0,
        sectorsPerTrack: 0,
        firmwareRevision: '2B2QEXM7',
        serialNum: 'S4EVNF0M123456',
        interfaceType: 'PCIe',
        smartStatus: 'unknown',
        temperature: null,
      },
    ],
    blockDevices: [
      {
        name: 'nvme0n1',
        identifier: 'nvme0n1',
        type: 'disk',
        fsType: '',
        mount: '',
        size: 500107862016,
        physical: 'SSD',
        uuid: '',
        label: '',
        model: 'Samsung SSD 970 EVO Plus 500GB',
        serial: 'S4EVNF0M123456',
        removable: false,
        protocol: 'nvme',
      },
      {
        name: 'nvme0n1p1',
        identifier: 'nvme0n1p1',
        type: 'part',
        fsType: 'vfat',
        mount: '/boot/efi',
        size: 536870912,
        physical: '',
        uuid: 'ABCD-1234',
        label: 'EFI',
        model: '',
        serial: '',
        removable: false,
        protocol: 'nvme',
      },
      {
        name: 'nvme0n1p2',
        identifier: 'nvme0n1p2',
        type: 'part',
        fsType: 'ext4',
        mount: '/',
        size: 499569786880,
        physical: '',
        uuid: '0b2e6c1a-4f7e-4c55-9d61-7b1f2c3d4e5f',
        label: 'rootfs',
        model: '',
        serial: '',
        removable: false,
        protocol: 'nvme',
      },
      {
        name: 'sda',
        identifier: 'sda',
        type: 'disk',
        fsType: '',
        mount: '',
        size: 32010928128,
        physical: 'HDD',
        uuid: '',
        label: '',
        model: 'Ultra Fit',
        serial: '4C530001',
        removable: true,
        protocol: 'usb',
      },
      {
        name: 'sda1',
        identifier: 'sda1',
        type: 'part',
        fsType: 'vfat',
        mount: '/media/usb',
        size: 32009879552,
        physical: '',
        uuid: 'F00D-CAFE',
        label: 'STICK',
        model: '',
        serial: '',
        removable: true,
        protocol: 'usb',
      },
      {
        name: 'loop0',
        identifier: 'loop0',
        type: 'loop',
        fsType: 'squashfs',
        mount: '/snap/core/1',
        size: 4096,
        physical: '',
        uuid: '',
        label: '',
        model: '',
        serial: '',
        removable: false,
        protocol: '',
      },
      {
        name: 'zram0',
        identifier: 'zram0',
        type: 'disk',
        fsType: 'swap',
        mount: '[SWAP]',
        size: 1073741824,
        physical: 'SSD',
        uuid: '',
        label: '',
        model: '',
        serial: '',
        removable: false,
        protocol: '',
      },
    ],
    fileSystems: [
      { fs: '/dev/nvme0n1p2', type: 'ext4', size: 490000000000, used: 1, available: 2, use: 0, mount: '/', rw: true },
      {
        fs: '/dev/sda1',
        type: 'vfat',
        size: 32000000000,
        used: 1,
        available: 2,
        use: 0,
        mount: '/media/usb',
        rw: false,
      },
    ],
    networkInterfaces: [
      {
        iface: 'lo',
        ifaceName: 'lo',
        default: false,
        ip4: '127.0.0.1',
        ip4subnet: '255.0.0.0',
        ip6: '::1',
        ip6subnet: '',
        mac: '00:00:00:00:00:00',
        internal: true,
        virtual: false,
        operstate: 'unknown',
        type: 'virtual',
        duplex: '',
        mtu: 65536,
        speed: null,
        dhcp: false,
        dnsSuffix: '',
        ieee8021xAuth: '',
        ieee8021xState: '',
        carrierChanges: 0,
      },
      {
        iface: 'wlan0',
        ifaceName: 'wlan0',
        default: false,
        ip4: '',
        ip4subnet: '',
        ip6: '',
        ip6subnet: '',
        mac: 'a4:34:d9:00:00:02',
        internal: false,
        virtual: false,
        operstate: 'down',
        type: 'wireless',
        duplex: '',
        mtu: 1500,
        speed: -1,
        dhcp: false,
        dnsSuffix: '',
        ieee8021xAuth: '',
        ieee8021xState: '',
        carrierChanges: 0,
      },
      {
        iface: 'eno1',
        ifaceName: 'eno1',
        default: true,
        ip4: '192.168.1.20',
        ip4subnet: '255.255.255.0',
        ip6: 'fe80::1',
        ip6subnet: '',
        mac: '94:c6:91:00:00:01',
        internal: false,
        virtual: false,
        operstate: 'up',
        type: 'wired',
        duplex: 'full',
        mtu: 1500,
        speed: 1000,
        dhcp: true,
        dnsSuffix: '',
        ieee8021xAuth: '',
        ieee8021xState: '',
        carrierChanges: 1,
      },
    ],
    os: {
      platform: 'linux',
      distro: 'Debian GNU/Linux',
      release: '12',
      codename: 'bookworm',
      kernel: '6.1.0-18-amd64',
      arch: 'x64',
      hostname: 'nuc',
      fqdn: 'nuc',
      codepage: 'UTF-8',
      logofile: 'debian',
      serial: '',
      build: '',
      servicepack: '',
      uefi: true,
    },
    temperature: { main: 47, cores: [45, 47, 0, 46], max: 52, socket: [], chipset: NO_SENSOR },
    nodeInterfaces: {
      eno1: [
        {
          address: '192.168.1.20',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '94:c6:91:00:00:01',
          internal: false,
          cidr: '192.168.1.20/24',
        },
        {
          address: '192.168.1.21',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '94:c6:91:00:00:01',
          internal: false,
          cidr: '192.168.1.21/24',
        },
        {
          address: 'fe80::1',
          netmask: 'ffff:ffff:ffff:ffff::',
          family: 'IPv6',
          mac: '94:c6:91:00:00:01',
          internal: false,
          cidr: 'fe80::1/64',
          scopeid: 2,
        },
      ],
    },
  };
}

describe('inventoryFromSystemInformation', () => {
  it('maps system and baseboard, CPU, memory layout, disks, file systems, interfaces, OS and temperature', () => {
    const info = inventoryFromSystemInformation(pcReading());
    expect(reportedDeviceInfoSchema.safeParse(info).success).toBe(true);
    expect(info).toMatchObject({
      architecture: 'amd64',
      hardware: 'generic',
      operatingSystem: 'Linux',
      kernelVersion: '6.1.0-18-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
    });
    const hardware = info.hardwareInformation;
    expect(hardware?.system).toEqual({
      manufacturer: 'Intel Corporation',
      productName: 'NUC8i5BEH',
      version: 'J72753-303',
      serialNumber: 'G6BE9370046A',
      configuration: { chassis: 'Desktop', uuid: '8d1c5b6e-1f2a-4a6b-9d1e-000000000001', skuNumber: 'BOXNUC8i5BEH' },
      virtual: false,
    });
    expect(hardware?.baseboard).toEqual({
      manufacturer: 'Intel Corporation',
      model: 'NUC8BEB',
      version: 'J72693-306',
      serialNumber: 'GEBE93600ABC',
      memoryMaxBytes: 34359738368,
      memorySlots: 2,
    });
    expect(hardware?.bios).toEqual({
      vendor: 'Intel Corp.',
      biosVersion: 'BECFL357.86A.0081.2020.0504.1834',
      releaseDate: '2020-05-04',
    });
    expect(hardware?.cpu).toEqual({
      model: 'Intel Core™ i5-8259U',
      cores: 8,
      physicalCores: 4,
      processors: 1,
      speedGHz: 3.8,
    });
    expect(hardware?.memory?.totalBytes).toBe(16_638_275_584);
    expect(hardware?.memory?.modules).toEqual([
      {
        sizeBytes: 8589934592,
        bank: 'BANK 0',
        type: 'DDR4',
        clockSpeedMHz: 2400,
        formFactor: 'SODIMM',
        partNumber: 'CT8G4SFS824A.C8FE',
        serialNumber: '1C2D3E4F',
      },
      // an all-zero serial is a placeholder
      {
        sizeBytes: 8589934592,
        bank: 'BANK 2',
        type: 'DDR4',
        clockSpeedMHz: 2400,
        formFactor: 'SODIMM',
        partNumber: 'CT8G4SFS824A.C8FE',
      },
    ]);
    expect(hardware?.fileSystems).toEqual([
      { device: '/dev/nvme0n1p2', type: 'ext4', mount: '/', sizeBytes: 490000000000, readOnly: false },
      { device: '/dev/sda1', type: 'vfat', mount: '/media/usb', sizeBytes: 32000000000, readOnly: true },
    ]);
    expect(hardware?.temperature).toEqual({ mainCelsius: 47, maxCelsius: 52, coresCelsius: [45, 47, 46] });
  });

  it('lists whole disks with their partitions, without loop and zram devices', () => {
    const disks = inventoryFromSystemInformation(pcReading()).hardwareInformation?.disks;
    expect(disks?.map((d) => d.name)).toEqual(['/dev/nvme0n1', '/dev/sda']);
    expect(disks?.[0]).toMatchObject({
      type: 'NVMe',
      sizeBytes: 500107862016,
      model: 'Samsung SSD 970 EVO Plus 500GB',
      vendor: 'Samsung',
      serialNumber: 'S4EVNF0M123456',
      interfaceType: 'PCIe',
      removable: false,
    });
    expect(disks?.[0]?.partitions).toEqual([
      {
        name: 'nvme0n1p1',
        sizeBytes: 536870912,
        fsType: 'vfat',
        mountpoint: '/boot/efi',
        label: 'EFI',
        uuid: 'ABCD-1234',
      },
      {
        name: 'nvme0n1p2',
        sizeBytes: 499569786880,
        fsType: 'ext4',
        mountpoint: '/',
        label: 'rootfs',
        uuid: '0b2e6c1a-4f7e-4c55-9d61-7b1f2c3d4e5f',
      },
    ]);
    // no disk layout entry (USB sticks often have none): lsblk's kind and transport
    expect(disks?.[1]).toMatchObject({ type: 'HD', interfaceType: 'usb', removable: true, model: 'Ultra Fit' });
    expect(disks?.[1]?.partitions?.map((p) => p.name)).toEqual(['sda1']);
  });

  it('keys interfaces by name with all their addresses, lists one without any, and leaves out loopback', () => {
    const interfaces = inventoryFromSystemInformation(pcReading()).networkInterfaces;
    expect(Object.keys(interfaces ?? {})).toEqual(['eno1', 'wlan0']);
    expect(interfaces?.['eno1']).toEqual({
      interfaceName: 'eno1',
      ipAddressV4: ['192.168.1.20', '192.168.1.21'],
      ipAddressV6: ['fe80::1'],
      mac: '94:c6:91:00:00:01',
      type: 'wired',
      operState: 'up',
      mtu: 1500,
      speedMbps: 1000,
      isDefault: true,
    });
    expect(interfaces?.['wlan0']).toEqual({
      interfaceName: 'wlan0',
      mac: 'a4:34:d9:00:00:02',
      type: 'wireless',
      operState: 'down',
      mtu: 1500,
      isDefault: false,
    });
  });

  it('leaves out what a machine without DMI or sensors does not tell, and names a Raspberry Pi', () => {
    const reading = pcReading();
    reading.system = {
      manufacturer: '',
      model: 'Raspberry Pi 4 Model B Rev 1.4',
      version: '',
      serial: '-',
      uuid: '',
      sku: '-',
      virtual: false,
    };
    reading.baseboard = {
      manufacturer: '',
      model: '',
      version: '',
      serial: '',
      assetTag: '',
      memMax: null,
      memSlots: null,
    };
    reading.bios = { vendor: '', version: '', releaseDate: '', revision: '' };
    reading.temperature = { main: NO_SENSOR, cores: [], max: NO_SENSOR, socket: [], chipset: NO_SENSOR };
    reading.os = { ...reading.os, arch: 'arm64' };
    const info = inventoryFromSystemInformation(reading);
    expect(info.hardware).toBe('raspberrypi');
    expect(info.architecture).toBe('arm64');
    expect(info.hardwareInformation?.system).toEqual({
      productName: 'Raspberry Pi 4 Model B Rev 1.4',
      configuration: { chassis: 'Desktop' },
      virtual: false,
    });
    expect(info.hardwareInformation?.baseboard).toBeUndefined();
    expect(info.hardwareInformation?.bios).toBeUndefined();
    expect(info.hardwareInformation?.temperature).toBeUndefined();
  });

  it('keeps every value within the protocol bounds, so one odd string does not cost the whole report', () => {
    const reading = pcReading();
    reading.system = { ...reading.system, model: 'M'.repeat(10_000) };
    reading.chassis = { ...reading.chassis, type: 'T'.repeat(1_000) };
    reading.temperature = { main: 5000, cores: [-300], max: 60, socket: [], chipset: NO_SENSOR };
    const info = inventoryFromSystemInformation(reading);
    expect(reportedDeviceInfoSchema.safeParse(info).success).toBe(true);
    expect(info.hardwareInformation?.system?.productName).toHaveLength(4096);
    expect(info.hardwareInformation?.temperature).toEqual({ maxCelsius: 60 });
  });
});
