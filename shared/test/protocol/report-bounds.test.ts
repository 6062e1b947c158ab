import { describe, expect, it } from 'vitest';
import { parseAgentMessage, registerDeviceRequestSchema } from '../../src/protocol/index.js';

const now = (): string => new Date().toISOString();
const daysFromNow = (days: number): string => new Date(Date.now() + days * 24 * 3600 * 1000).toISOString();

const metrics = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'metrics',
  time: now(),
  cpu: { usagePercent: 12.5 },
  memory: { totalBytes: 1000, usedBytes: 400 },
  storage: [{ mount: '/', totalBytes: 10_000, usedBytes: 5_000 }],
  uptimeSeconds: 60,
  load1: 0.3,
  temperatureCelsius: 48,
  ...overrides,
});

const condition = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'OSReady',
  status: 'True',
  reason: 'Running',
  message: '',
  lastTransitionTime: now(),
  ...overrides,
});

const hookRun = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  hook: 'on-boot',
  startTime: now(),
  durationMs: 12,
  exitCode: 0,
  timedOut: false,
  bootId: 'b1',
  ...overrides,
});

const parse = (message: Record<string, unknown>) => parseAgentMessage(JSON.stringify(message));

/** The error of a refused message (fails the test when it was accepted). */
function refusal(message: Record<string, unknown>): string {
  const result = parse(message);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(message).slice(0, 200)}`);
  return result.error;
}

describe('ranges of what a device reports', () => {
  it('accepts a sane metrics sample, a sample from a clock never set (1970), and one a little ahead', () => {
    expect(parse(metrics()).ok).toBe(true);
    expect(parse(metrics({ time: '1970-01-01T00:00:05Z' })).ok).toBe(true);
    expect(parse(metrics({ time: daysFromNow(0.5) })).ok).toBe(true);
    expect(parse(metrics({ cpu: { usagePercent: 100 }, temperatureCelsius: -40 })).ok).toBe(true);
  });

  it.each([
    ['a CPU at 1e308 %', { cpu: { usagePercent: 1e308 } }, /cpu\.usagePercent/],
    ['a CPU above 100 %', { cpu: { usagePercent: 100.5 } }, /cpu\.usagePercent/],
    ['a sample from the year 9999', { time: '9999-12-31T23:59:59Z' }, /time: must be a time between 1970/],
    ['a sample two days ahead', { time: daysFromNow(2) }, /time/],
    ['a sample before 1970', { time: '1969-12-31T23:59:59Z' }, /time/],
    ['negative memory', { memory: { totalBytes: 1000, usedBytes: -1 } }, /memory\.usedBytes/],
    ['more memory used than there is', { memory: { totalBytes: 1000, usedBytes: 1001 } }, /memory\.usedBytes/],
    ['a fractional byte count', { memory: { totalBytes: 1000.5, usedBytes: 1 } }, /memory\.totalBytes/],
    ['1e308 bytes', { memory: { totalBytes: 1e308, usedBytes: 1 } }, /memory\.totalBytes/],
    ['a negative disk size', { storage: [{ mount: '/', totalBytes: -10, usedBytes: 0 }] }, /storage\[0\]\.totalBytes/],
    ['a disk fuller than full', { storage: [{ mount: '/', totalBytes: 10, usedBytes: 11 }] }, /storage\[0\]/],
    [
      'a mount path of 10,000 characters',
      { storage: [{ mount: `/${'m'.repeat(10_000)}`, totalBytes: 1, usedBytes: 0 }] },
      /mount/,
    ],
    ['a temperature below absolute zero', { temperatureCelsius: -300 }, /temperatureCelsius/],
    ['a temperature of 1e308', { temperatureCelsius: 1e308 }, /temperatureCelsius/],
    ['an uptime of 1e308 s', { uptimeSeconds: 1e308 }, /uptimeSeconds/],
    ['a negative load', { load1: -1 }, /load1/],
  ])('refuses metrics with %s', (_what, overrides, error) => {
    expect(refusal(metrics(overrides))).toMatch(error);
  });

  it.each([
    [
      'a condition from the year 9999',
      { conditions: [condition({ lastTransitionTime: '9999-01-01T00:00:00Z' })] },
      /conditions\[0\]\.lastTransitionTime/,
    ],
    [
      'a condition message of 100 KiB',
      { conditions: [condition({ message: 'x'.repeat(100 * 1024) })] },
      /conditions\[0\]\.message/,
    ],
    [
      'a condition type of 1,000 characters',
      { conditions: [condition({ type: 't'.repeat(1000) })] },
      /conditions\[0\]\.type/,
    ],
    [
      'a hook run from the year 9999',
      { hooks: [hookRun({ startTime: '9999-01-01T00:00:00Z' })] },
      /hooks\[0\]\.startTime/,
    ],
    ['a negative hook duration', { hooks: [hookRun({ durationMs: -5 })] }, /hooks\[0\]\.durationMs/],
    ['an exit code of 70000', { hooks: [hookRun({ exitCode: 70_000 })] }, /hooks\[0\]\.exitCode/],
    ['more hook runs than hooks', { hooks: [hookRun(), hookRun(), hookRun(), hookRun()] }, /hooks/],
    ['an OS version of 1,000 characters', { deviceInfo: { osVersion: 'v'.repeat(1000) } }, /deviceInfo\.osVersion/],
    ['a negative disk size', { deviceInfo: { hardwareInformation: { disks: [{ sizeBytes: -1 }] } } }, /sizeBytes/],
    ['a CPU with a million cores', { deviceInfo: { hardwareInformation: { cpu: { cores: 1_000_000 } } } }, /cores/],
    [
      'an interface name of 1,000 characters',
      { deviceInfo: { networkInterfaces: { eth0: { interfaceName: 'i'.repeat(1000) } } } },
      /interfaceName/,
    ],
    [
      '5,000 interfaces',
      { deviceInfo: { networkInterfaces: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`if${i}`, {}])) } },
      /networkInterfaces: must have at most 4096 entries/,
    ],
    [
      'an address of 1,000 characters',
      { addresses: [{ address: 'a'.repeat(1000), type: 'InternalIP' }] },
      /addresses\[0\]\.address/,
    ],
    [
      'a boot environment value of 10,000 characters',
      { osUpdate: { bootBackend: 'file', bootEnv: { a: 'x'.repeat(10_000) } } },
      /osUpdate\.bootEnv/,
    ],
  ])('refuses a status with %s', (_what, members, error) => {
    expect(refusal({ type: 'status', seq: 1, ...members })).toMatch(error);
  });

  it('accepts a full, sane status', () => {
    const result = parse({
      type: 'status',
      seq: 1,
      deviceInfo: {
        osVersion: '1.0.2',
        hardwareInformation: {
          cpu: { cores: 4, speedGHz: 1.5 },
          memory: { totalBytes: 4e9 },
          disks: [{ sizeBytes: 32e9 }],
        },
        networkInterfaces: { eth0: { interfaceName: 'eth0', ipAddressV4: ['10.0.0.2'] } },
      },
      conditions: [condition({ message: 'm'.repeat(4000) })],
      addresses: [{ address: '10.0.0.2', type: 'InternalIP' }],
      osUpdate: { bootBackend: 'grubenv', slots: { A: { version: '1.0.2' } }, bootEnv: { next_entry: 'A' } },
      hooks: [hookRun(), hookRun({ hook: 'after-droplet', exitCode: 1 })],
    });
    expect(result.ok).toBe(true);
  });

  it('refuses oversized hello and pong members', () => {
    expect(refusal({ type: 'hello', agentVersion: '1'.repeat(1000), bootId: 'b', capabilities: [] })).toMatch(
      /agentVersion/,
    );
    expect(refusal({ type: 'pong', nonce: 'n'.repeat(1000) })).toMatch(/nonce/);
  });

  it('does not echo an oversized id in the refusal', () => {
    const result = parse({ type: 'result', id: 'i'.repeat(1000), ok: true });
    expect(result).toMatchObject({ ok: false });
    expect(result).not.toHaveProperty('refId');
  });
});

describe('what only the server writes', () => {
  it('a status cannot carry deviceInfo.usage: it is left out, like any member a report does not have', () => {
    const result = parse({
      type: 'status',
      seq: 1,
      deviceInfo: { osVersion: '1.0.0', usage: { cpuPercent: 99, memoryUsedBytes: 1 } },
      connectionStatus: 'CONNECTED',
      connectionStatusChangeTime: '2020-01-01T00:00:00Z',
      agent: { version: 'forged' },
      metrics: { time: now() },
    });
    expect(result).toEqual({ ok: true, message: { type: 'status', seq: 1, deviceInfo: { osVersion: '1.0.0' } } });
  });

  it('a registration cannot carry deviceInfo.usage either', () => {
    const parsed = registerDeviceRequestSchema.parse({
      deviceId: 'edge-01',
      deviceInfo: { osVersion: '1.0.0', usage: { cpuPercent: 99 } },
    });
    expect(parsed.deviceInfo).toEqual({ osVersion: '1.0.0' });
  });
});
