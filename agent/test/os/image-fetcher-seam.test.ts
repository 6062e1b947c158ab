/**
 * The OS updater's ImageFetcher seam, over the in-memory device: the executor's own steps (slot records, switch,
 * reboot, trial boot, commit, failure) around an image that another fetcher brings in.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentMessage, Condition, DesiredDevice } from '@outpost/shared';
import { StatusReporter } from '../../src/metrics/status-reporter.js';
import { MemoryDevice, memoryBackend } from '../../src/os/boot/memory-backend.js';
import { ArtifactError } from '../../src/os/download/artifact-error.js';
import type { ImageFetcher } from '../../src/os/download/image-fetcher.js';
import { memoryOsProgressStore } from '../../src/os/memory-progress.js';
import type { OsProgressStore } from '../../src/os/os-progress.js';
import { OsUpdater } from '../../src/os/os-updater.js';
import { eventually } from '../helpers/eventually.js';

const desired = (version: string): DesiredDevice => ({
  name: 'projects/p/regions/r/devices/d',
  spec: { osVersion: version },
  metadata: { generation: 2 },
  osImage: { version, deviceType: 'simulated', sha256: 'a'.repeat(64), size: 1024, url: '/v1/artifacts/x' },
});

const running: OsUpdater[] = [];
afterEach(async () => {
  for (const updater of running.splice(0)) await updater.stop();
});

/** One boot of the device: a connected link that records the status sent, and an updater; reboots are counted. */
function boot(device: MemoryDevice, store: OsProgressStore, fetchImage: ImageFetcher) {
  device.powerOn();
  const sent: AgentMessage[] = [];
  const link = { connected: true, send: (m: AgentMessage) => sent.push(m) > 0 };
  const reporter = new StatusReporter({ link, minIntervalMs: 0 });
  const reboots: number[] = [];
  const updater = new OsUpdater({
    backend: memoryBackend(device),
    store,
    power: { reboot: async () => void reboots.push(Date.now()), poweroff: async () => {} },
    runShutdownHooks: async () => {},
    link: { connected: true, onConnected: () => () => {}, onDisconnected: () => () => {} },
    reporter,
    server: 'http://127.0.0.1:1',
    credential: async () => 'unused',
    trustDirs: [],
    deviceType: 'simulated',
    commitTimeoutMs: 60_000,
    logger: pino({ level: 'silent' }),
    fetchImage,
  });
  running.push(updater);
  const osReady = (): Condition | undefined => reporter.current.conditions?.find((c) => c.type === 'OSReady');
  return { updater, reporter, reboots, osReady };
}

describe('an OsUpdater with its own ImageFetcher', () => {
  it('installs what the fetcher brings: verifying, switch, reboot, trial boot, commit', async () => {
    const device = new MemoryDevice({ factoryVersion: '1.0.0' });
    const store = memoryOsProgressStore();
    const fetched: string[] = [];
    const fetchImage: ImageFetcher = async (fetch) => {
      fetched.push(`${fetch.version} into ${fetch.target.slot}`);
      fetch.onVerifying();
    };
    const first = boot(device, store, fetchImage);
    await first.updater.prime();
    first.updater.start();
    first.updater.setDesired(desired('1.1.0'));
    await eventually(() => expect(first.reboots).toHaveLength(1));
    expect(fetched).toEqual(['1.1.0 into B']);
    expect(device.bootloader.trySlot).toBe('B');
    expect(device.slotVersion('B')).toBe('1.1.0');
    await first.updater.stop();

    device.powerOff();
    const second = boot(device, store, fetchImage);
    await second.updater.prime();
    second.updater.start();
    second.updater.setDesired(desired('1.1.0'));
    await eventually(() => expect(second.osReady()).toMatchObject({ status: 'True', reason: 'Converged' }));
    expect(second.reporter.current.deviceInfo?.osVersion).toBe('1.1.0');
    expect(device.bootloader.activeSlot).toBe('B');
    expect(second.reboots).toEqual([]);
  });

  it("a fetcher's ArtifactError is the version's failure: OSReady False/Failed, no switch, no reboot", async () => {
    const device = new MemoryDevice({ factoryVersion: '1.0.0' });
    const { updater, reboots, osReady } = boot(device, memoryOsProgressStore(), async () => {
      throw new ArtifactError('the simulated image is bad');
    });
    await updater.prime();
    updater.start();
    updater.setDesired(desired('1.1.0'));
    await eventually(() =>
      expect(osReady()).toMatchObject({ status: 'False', reason: 'Failed', message: 'the simulated image is bad' }),
    );
    expect(reboots).toEqual([]);
    expect(device.bootloader.trySlot).toBeUndefined();
    expect(device.slotVersion('B')).toBeUndefined();
  });
});
