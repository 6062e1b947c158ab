import { describe, expect, it } from 'vitest';
import { parseAgentMessage } from '../../src/protocol/index.js';

// The inventory members of deviceInfo (systeminformation's reading, issue 19) keep to the protocol's bounds too.

const status = (hardwareInformation: Record<string, unknown>, networkInterfaces: Record<string, unknown> = {}) =>
  parseAgentMessage(JSON.stringify({ type: 'status', seq: 1, deviceInfo: { hardwareInformation, networkInterfaces } }));

function refusal(hardwareInformation: Record<string, unknown>, networkInterfaces?: Record<string, unknown>): string {
  const result = status(hardwareInformation, networkInterfaces);
  if (result.ok) throw new Error('the status was accepted');
  return result.error;
}

describe('the device inventory in a status', () => {
  it('accepts a full inventory', () => {
    const result = status(
      {
        system: { manufacturer: 'Intel Corporation', configuration: { chassis: 'Desktop', uuid: 'u' }, virtual: false },
        baseboard: { manufacturer: 'Intel Corporation', model: 'NUC8BEB', memoryMaxBytes: 34359738368, memorySlots: 2 },
        cpu: { model: 'Intel Core i5', cores: 8, physicalCores: 4, processors: 1, speedGHz: 3.8 },
        memory: { totalBytes: 16e9, modules: [{ sizeBytes: 8589934592, type: 'DDR4', clockSpeedMHz: 2400 }] },
        disks: [
          { name: '/dev/sda', partitions: [{ name: 'sda1', sizeBytes: 5e8, fsType: 'vfat', mountpoint: '/boot' }] },
        ],
        fileSystems: [{ device: '/dev/sda2', type: 'ext4', mount: '/', sizeBytes: 3e10, readOnly: false }],
        temperature: { mainCelsius: 47, maxCelsius: 52, coresCelsius: [45, 47] },
      },
      { eth0: { interfaceName: 'eth0', type: 'wired', operState: 'up', mtu: 1500, speedMbps: 1000, isDefault: true } },
    );
    expect(result.ok).toBe(true);
  });

  it.each([
    ['a memory module of negative size', { memory: { modules: [{ sizeBytes: -1 }] } }, /modules\[0\]\.sizeBytes/],
    ['2,000 memory modules', { memory: { modules: Array.from({ length: 2000 }, () => ({})) } }, /modules/],
    ['a partition of fractional size', { disks: [{ partitions: [{ sizeBytes: 1.5 }] }] }, /partitions\[0\]\.sizeBytes/],
    ['a mount point of 5,000 characters', { fileSystems: [{ mount: '/'.repeat(5000) }] }, /fileSystems\[0\]\.mount/],
    ['a sensor at 5,000 °C', { temperature: { mainCelsius: 5000 } }, /temperature\.mainCelsius/],
    ['a board with a million memory slots', { baseboard: { memorySlots: 1_000_000 } }, /memorySlots/],
    ['a chassis type of 1,000 characters', { system: { configuration: { chassis: 'c'.repeat(1000) } } }, /chassis/],
  ])('refuses %s', (_what, hardware, error) => {
    expect(refusal(hardware)).toMatch(error);
  });

  it('refuses an interface with an MTU of 10 million or a negative speed', () => {
    expect(refusal({}, { eth0: { mtu: 10_000_000 } })).toMatch(/mtu/);
    expect(refusal({}, { eth0: { speedMbps: -1 } })).toMatch(/speedMbps/);
  });
});
