import type { DesiredDevice } from '@outpost/shared';
import type { DeviceIdentity } from './config/load-or-provision.js';
import { readCredential } from './config/credential.js';
import type { AgentPaths } from './config/paths.js';
import { AgentLink } from './link/agent-link.js';
import type { AgentLinkOptions } from './link/agent-link.js';
import type { Logger } from './logging/logger.js';
import { startReporting } from './metrics/reporting.js';
import type { Reporting } from './metrics/reporting.js';
import { StatusReporter } from './metrics/status-reporter.js';
import type { SystemFactsSource } from './metrics/system-facts.js';
import { agentStateStore } from './state/agent-state.js';
import type { AgentStateStore } from './state/agent-state.js';
import { writeJsonFileAtomic } from '@outpost/shared';

export interface DropletOptions {
  paths: AgentPaths;
  identity: DeviceIdentity;
  agentVersion: string;
  bootId: string;
  facts: SystemFactsSource;
  logger: Logger;
  /** link tuning (tests shorten the timers) */
  link?: Partial<Omit<AgentLinkOptions, 'server' | 'credential' | 'hello' | 'logger'>>;
}

/** A running agent; later features register on `link` (spec consumers, commands) and `reporter` (conditions). */
export interface Droplet {
  link: AgentLink;
  reporter: StatusReporter;
  reporting: Reporting;
  state: AgentStateStore;
  stop(): Promise<void>;
}

/** Wires the link, the status reporter and the reporting loops for one provisioned device, and connects. */
export async function startDroplet(options: DropletOptions): Promise<Droplet> {
  const { paths, identity, logger } = options;
  const { config } = identity;
  const state = agentStateStore(paths.stateFile);
  const previous = await state.read();
  const osVersion = previous.osVersion ?? config.factoryVersion;
  if (previous.lastBootId !== undefined && previous.lastBootId !== options.bootId) logger.info('the device rebooted');
  await state.update({
    lastBootId: options.bootId,
    lastStartTime: new Date().toISOString(),
    ...(osVersion === undefined ? {} : { osVersion }),
  });

  const link = new AgentLink({
    ...options.link,
    server: config.server,
    // re-read at every attempt: an operator may rotate the credential file while the agent runs
    credential: async () => (await readCredential(paths.credentialFile)) ?? identity.credential,
    hello: () => ({ agentVersion: options.agentVersion, bootId: options.bootId }),
    logger,
  });
  const reporter = new StatusReporter({ link });
  if (osVersion !== undefined) reporter.report({ deviceInfo: { osVersion } });

  link.addSpecConsumer(async (device: DesiredDevice) => {
    await writeJsonFileAtomic(paths.desiredDeviceFile, device);
    logger.info(
      { generation: device.metadata.generation, osVersion: device.spec.osVersion },
      'received the device spec',
    );
  });

  const reporting = startReporting({
    link,
    reporter,
    facts: options.facts,
    identity: {
      managesOs: (config.bootBackend ?? 'none') !== 'none',
      ...(config.deviceType === undefined ? {} : { deviceType: config.deviceType }),
    },
    metricsIntervalMs: (config.metricsIntervalSeconds ?? 60) * 1000,
    logger,
  });
  link.start();
  logger.info(
    { deviceName: config.deviceName, server: config.server, agentVersion: options.agentVersion },
    'droplet started',
  );

  return {
    link,
    reporter,
    reporting,
    state,
    async stop() {
      reporting.stop();
      await link.stop();
    },
  };
}
