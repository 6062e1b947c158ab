import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentMessage } from '@outpost/shared';
import { startReporting } from '../../src/metrics/reporting.js';
import type { ReportingLink } from '../../src/metrics/reporting.js';
import { StatusReporter } from '../../src/metrics/status-reporter.js';
import type { InventoryDeviceInfo } from '../../src/metrics/inventory/inventory-from-system-information.js';
import type { DeviceFacts, SystemFactsSource, UsageFacts } from '../../src/metrics/system-facts.js';
import { capturedLogger } from '../helpers/captured-logger.js';

class RecordingLink implements ReportingLink {
  connected = false;
  readonly sent: AgentMessage[] = [];
  private readonly listeners = new Set<() => void>();
  send(message: AgentMessage): boolean {
    if (!this.connected) return false;
    this.sent.push(message);
    return true;
  }
  onConnected(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  connect(): void {
    this.connected = true;
    for (const listener of this.listeners) listener();
  }
  count(type: string): number {
    return this.sent.filter((m) => m.type === type).length;
  }
}

/** A machine whose facts the test controls (the real readers are tested on their own). */
class ScriptedMachine implements SystemFactsSource {
  kernel = '6.1';
  usageReads = 0;
  async deviceFacts(): Promise<DeviceFacts> {
    return {
      os: { platform: 'linux', distro: 'Debian', release: '12', codename: '', kernel: this.kernel, arch: 'x64' },
      interfaces: {},
    };
  }
  async usageFacts(): Promise<UsageFacts> {
    this.usageReads += 1;
    return { cpuPercent: 5, memory: { total: 100, available: 50 }, filesystems: [], uptimeSeconds: 10, load1: 0.1 };
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('startReporting', () => {
  it('sends metrics every interval while connected and drops them while offline', async () => {
    vi.useFakeTimers();
    const link = new RecordingLink();
    const machine = new ScriptedMachine();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    const reporting = startReporting({
      link,
      reporter,
      facts: machine,
      identity: { managesOs: true },
      metricsIntervalMs: 60_000,
      logger: capturedLogger().logger,
    });

    await vi.advanceTimersByTimeAsync(180_000);
    expect(link.sent).toEqual([]);
    expect(machine.usageReads).toBe(0); // offline: not even sampled

    link.connect(); // status resent whole, and one sample right away
    await vi.advanceTimersByTimeAsync(0);
    expect(link.sent.map((m) => m.type)).toEqual(['status', 'metrics']);
    expect(link.sent[0]).toMatchObject({ deviceInfo: { kernelVersion: '6.1', managedFeatures: { os: true } } });

    await vi.advanceTimersByTimeAsync(120_000);
    expect(link.count('metrics')).toBe(3);
    expect(link.count('status')).toBe(1);
    reporting.stop();
  });

  it('tells when the first device info is in the status', async () => {
    const link = new RecordingLink();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    const reporting = startReporting({
      link,
      reporter,
      facts: new ScriptedMachine(),
      identity: { managesOs: false },
      logger: capturedLogger().logger,
    });
    await reporting.firstDeviceInfo;
    expect(reporter.current.deviceInfo).toMatchObject({ kernelVersion: '6.1', managedFeatures: { os: false } });
    reporting.stop();
  });

  it('reports device info again only when it changed', async () => {
    vi.useFakeTimers();
    const link = new RecordingLink();
    const machine = new ScriptedMachine();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    link.connect();
    let fingerprint = 'a';
    const reporting = startReporting({
      link,
      reporter,
      facts: machine,
      identity: { managesOs: true },
      metricsIntervalMs: 1_000,
      fingerprint: async () => fingerprint,
      logger: capturedLogger().logger,
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(link.count('status')).toBe(1);
    fingerprint = 'b'; // read again, but nothing the status shows changed: nothing sent
    await vi.advanceTimersByTimeAsync(1_000);
    expect(link.count('status')).toBe(1);
    machine.kernel = '6.2';
    fingerprint = 'c';
    await vi.advanceTimersByTimeAsync(1_000);
    expect(link.count('status')).toBe(2);
    expect(link.sent.at(-1)).toMatchObject({ type: 'status', seq: 2, deviceInfo: { kernelVersion: '6.2' } });
    reporting.stop();
  });
});

/** A machine with an inventory too, as systemFacts() has with its collector process. */
class InventoriedMachine extends ScriptedMachine {
  inventoryReads = 0;
  failing = false;
  cores = 4;
  override async deviceFacts(): Promise<DeviceFacts> {
    return { ...(await super.deviceFacts()), interfaces: {} };
  }
  async inventory(): Promise<InventoryDeviceInfo> {
    this.inventoryReads += 1;
    if (this.failing) throw new Error('the inventory collector exited with 1: boom');
    return {
      kernelVersion: this.kernel,
      hardwareInformation: { cpu: { cores: this.cores }, fileSystems: [{ mount: '/', type: 'ext4' }] },
      networkInterfaces: { eth0: { interfaceName: 'eth0', ipAddressV4: ['10.0.0.5'], ipAddressV6: ['fe80::1'] } },
    };
  }
}

describe('startReporting with an inventory', () => {
  function start(machine: InventoriedMachine, fingerprint: () => Promise<string>, schedule?: string) {
    // far from the default schedule's hours, so that only the test's own steps read the inventory
    if (schedule === undefined) vi.setSystemTime(new Date(2026, 0, 1, 1, 0, 0));
    const link = new RecordingLink();
    link.connect();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    const captured = capturedLogger();
    const reporting = startReporting({
      link,
      reporter,
      facts: machine,
      identity: { managesOs: false, deviceType: 'generic-amd64' },
      metricsIntervalMs: 60_000,
      fingerprint,
      ...(schedule === undefined ? {} : { inventorySchedule: schedule }),
      logger: captured.logger,
    });
    return { link, reporter, reporting, captured };
  }

  it('reports the quick facts first, then the inventory with the identity and its addresses', async () => {
    vi.useFakeTimers();
    const machine = new InventoriedMachine();
    const { reporter, reporting } = start(machine, async () => 'same');
    await reporting.firstDeviceInfo;
    expect(reporter.current.deviceInfo?.managedFeatures).toEqual({ os: false, osUpgrade: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(machine.inventoryReads).toBe(1);
    expect(reporter.current.deviceInfo).toMatchObject({
      deviceType: 'generic-amd64',
      managedFeatures: { os: false, osUpgrade: false },
      hardwareInformation: { cpu: { cores: 4 }, fileSystems: [{ mount: '/' }] },
    });
    expect(reporter.current.addresses).toEqual([{ address: '10.0.0.5', type: 'InternalIP' }]);
    reporting.stop();
  });

  it('reads the inventory again when the fingerprint changes at a metrics interval, and only then', async () => {
    vi.useFakeTimers();
    const machine = new InventoriedMachine();
    let fingerprint = '/dev/sda1 / ext4 rw';
    const { reporter, reporting } = start(machine, async () => fingerprint);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(machine.inventoryReads).toBe(1);
    fingerprint += ' /dev/sdb1 /media/usb vfat rw';
    machine.cores = 8;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(machine.inventoryReads).toBe(2);
    expect(reporter.current.deviceInfo?.hardwareInformation?.cpu?.cores).toBe(8);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(machine.inventoryReads).toBe(2);
    reporting.stop();
  });

  it('reads the inventory again on its cron schedule', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date(2026, 0, 1, 0, 30, 0));
    const machine = new InventoriedMachine();
    const { reporting } = start(machine, async () => 'same', '0 */6 * * *');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(machine.inventoryReads).toBe(1);
    await vi.advanceTimersByTimeAsync(6 * 60 * 60_000); // 06:00 passed
    expect(machine.inventoryReads).toBe(2);
    await vi.advanceTimersByTimeAsync(6 * 60 * 60_000); // 12:00 passed
    expect(machine.inventoryReads).toBe(3);
    reporting.stop();
    await vi.advanceTimersByTimeAsync(6 * 60 * 60_000);
    expect(machine.inventoryReads).toBe(3);
  });

  it('keeps the last inventory when a reading fails, and logs why', async () => {
    vi.useFakeTimers();
    const machine = new InventoriedMachine();
    const { reporter, reporting, captured } = start(machine, async () => 'same');
    await vi.advanceTimersByTimeAsync(0);
    machine.failing = true;
    await reporting.refreshDeviceInfo();
    expect(reporter.current.deviceInfo?.hardwareInformation?.fileSystems).toEqual([{ mount: '/', type: 'ext4' }]);
    expect(captured.messages()).toContain('cannot read the inventory with systeminformation');
    reporting.stop();
  });

  it('starts no inventory reading once stopped', async () => {
    vi.useFakeTimers();
    const machine = new InventoriedMachine();
    const { reporting } = start(machine, async () => 'same');
    reporting.stop(); // before the reading that follows the quick facts
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(machine.inventoryReads).toBe(0);
  });

  it('reports the quick facts while no inventory could be read yet', async () => {
    vi.useFakeTimers();
    const machine = new InventoriedMachine();
    machine.failing = true;
    const { reporter, reporting } = start(machine, async () => 'same');
    await vi.advanceTimersByTimeAsync(0);
    expect(machine.inventoryReads).toBe(1);
    expect(reporter.current.deviceInfo).toMatchObject({ kernelVersion: '6.1', operatingSystem: 'Linux' });
    expect(reporter.current.deviceInfo?.hardwareInformation?.fileSystems).toBeUndefined();
    reporting.stop();
  });
});
