import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentMessage } from '@outpost/shared';
import { startReporting } from '../../src/metrics/reporting.js';
import type { ReportingLink } from '../../src/metrics/reporting.js';
import { StatusReporter } from '../../src/metrics/status-reporter.js';
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
    const reporting = startReporting({
      link,
      reporter,
      facts: machine,
      identity: { managesOs: true },
      metricsIntervalMs: 3_600_000,
      deviceInfoIntervalMs: 1_000,
      logger: capturedLogger().logger,
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(link.count('status')).toBe(1);
    machine.kernel = '6.2';
    await vi.advanceTimersByTimeAsync(1_000);
    expect(link.count('status')).toBe(2);
    expect(link.sent.at(-1)).toMatchObject({ type: 'status', seq: 2, deviceInfo: { kernelVersion: '6.2' } });
    reporting.stop();
  });
});
