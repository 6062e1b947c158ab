import type { Logger } from '../../../src/logging/logger.js';
import { agentPaths } from '../../../src/config/paths.js';
import { startDroplet } from '../../../src/droplet.js';
import type { Droplet, DropletOsOptions } from '../../../src/droplet.js';
import { bootDevice, defaultTrustDirs } from '../../../src/os/device-boot.js';
import type { SystemFactsSource } from '../../../src/metrics/system-facts.js';
import type { WorkloadUser } from '../../../src/workloads/workload-user.js';
import { DEVICE_CREDENTIAL, DEVICE_NAME } from './fake-control-plane.js';

/** A machine with few facts (the real readers are tested on their own). */
const quietMachine: SystemFactsSource = {
  deviceFacts: async () => ({ interfaces: {} }),
  usageFacts: async () => ({ uptimeSeconds: 1, load1: 0 }),
};

export interface InProcessDevice {
  droplet: Droplet;
  /** reboots and power-offs the agent asked the simulated device for */
  powerEvents: string[];
  stop(): Promise<void>;
}

/**
 * One boot of a simulated device (file backend) with the real droplet in this process; `os: false` runs
 * it with the `none` backend. Nothing reboots it: power events are only recorded.
 */
export async function startInProcessDevice(
  root: string,
  server: string,
  logger: Logger,
  options: { slotSizeBytes?: number; os?: Partial<DropletOsOptions> | false; workloadUser?: WorkloadUser } = {},
): Promise<InProcessDevice> {
  const backendKind = options.os === false ? 'none' : 'file';
  const device = await bootDevice(
    {
      bootBackend: backendKind,
      deviceRoot: root,
      factoryVersion: '1.0.0',
      slotSizeBytes: options.slotSizeBytes ?? 16 * 1024 * 1024,
    },
    logger,
  );
  const powerEvents: string[] = [];
  void device.powerEvent.then((event) => powerEvents.push(event));
  const droplet = await startDroplet({
    paths: agentPaths(root),
    identity: {
      config: {
        server,
        deviceName: DEVICE_NAME,
        bootBackend: backendKind,
        deviceType: 'simulated',
        factoryVersion: '1.0.0',
      },
      credential: DEVICE_CREDENTIAL,
      provisioned: false,
    },
    agentVersion: '0.0.0-test',
    bootId: device.bootId,
    facts: quietMachine,
    logger,
    power: device.power,
    ...(options.workloadUser === undefined ? {} : { workloadUser: options.workloadUser }),
    ...(options.os === false || device.backend === undefined
      ? {}
      : {
          os: {
            backend: device.backend,
            trustDirs: defaultTrustDirs(root, 'file'),
            commitTimeoutMs: 60_000,
            tuning: {
              progressIntervalMs: 10,
              download: { checkpointIntervalMs: 20, backoff: { baseMs: 10, capMs: 50 } },
            },
            ...options.os,
          },
        }),
  });
  return { droplet, powerEvents, stop: () => droplet.stop() };
}
