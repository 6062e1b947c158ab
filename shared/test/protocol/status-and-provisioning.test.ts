import { describe, expect, it } from 'vitest';
import {
  mergeReportedStatus,
  registerDevicePath,
  registerDeviceRequestSchema,
  registerDeviceResponseSchema,
  usageFromMetrics,
} from '../../src/protocol/index.js';
import type { DeviceUsage, MetricsSample, ReportedStatus } from '../../src/protocol/index.js';

describe('mergeReportedStatus', () => {
  it('merges deviceInfo one level deep and replaces the other reported members', () => {
    const stored: ReportedStatus & { connectionStatus: string; deviceInfo: { usage?: DeviceUsage } } = {
      connectionStatus: 'CONNECTED',
      deviceInfo: { osVersion: '1.0.0', usage: { cpuPercent: 5 } },
      addresses: [{ address: '10.0.0.1', type: 'InternalIP' }],
      conditions: [],
    };
    const merged = mergeReportedStatus(stored, { deviceInfo: { osVersion: '1.0.1' }, addresses: [] });
    expect(merged).toEqual({
      connectionStatus: 'CONNECTED',
      deviceInfo: { osVersion: '1.0.1', usage: { cpuPercent: 5 } },
      addresses: [],
      conditions: [],
    });
    expect(stored.deviceInfo?.osVersion).toBe('1.0.0');
  });
});

describe('usageFromMetrics', () => {
  it('maps a metrics sample onto deviceInfo.usage', () => {
    const sample: MetricsSample = {
      time: '2025-01-01T00:00:00Z',
      cpu: { usagePercent: 7 },
      memory: { totalBytes: 100, usedBytes: 40 },
      storage: [{ mount: '/', totalBytes: 10, usedBytes: 1 }],
      temperatureCelsius: 51,
      uptimeSeconds: 3,
    };
    expect(usageFromMetrics(sample)).toEqual({
      cpuPercent: 7,
      memoryUsedBytes: 40,
      memoryTotalBytes: 100,
      storage: [{ mount: '/', totalBytes: 10, usedBytes: 1 }],
      temperatureCelsius: 51,
    });
  });
});

describe('device registration', () => {
  it('builds the register path', () => {
    expect(registerDevicePath('p1', 'eu')).toBe('/v1/projects/p1/regions/eu/devices:register');
  });

  it('accepts good device ids and refuses bad ones', () => {
    expect(registerDeviceRequestSchema.safeParse({ deviceId: 'edge-01' }).success).toBe(true);
    for (const deviceId of ['Edge', '1abc', 'a', 'ab-', 'a'.repeat(31), 'a_b']) {
      expect(registerDeviceRequestSchema.safeParse({ deviceId }).success, deviceId).toBe(false);
    }
  });

  it('needs a device name in the response; a credential only for a device registered without a key pair', () => {
    expect(registerDeviceResponseSchema.safeParse({ device: { name: 'n' }, credential: 'c' }).success).toBe(true);
    expect(registerDeviceResponseSchema.safeParse({ device: { name: 'n' } }).success).toBe(true);
    expect(registerDeviceResponseSchema.safeParse({ device: {}, credential: 'c' }).success).toBe(false);
    expect(registerDeviceResponseSchema.safeParse({ device: { name: 'n' }, credential: '' }).success).toBe(false);
  });
});
