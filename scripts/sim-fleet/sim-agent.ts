import type { DesiredDevice } from '@outpost/shared';
import { AgentLink } from '../../agent/src/link/agent-link.js';
import type { Logger } from '../../agent/src/logging/logger.js';
import { StatusReporter } from '../../agent/src/metrics/status-reporter.js';
import type { BootBackend } from '../../agent/src/os/boot/boot-backend.js';
import type { ImageFetcher } from '../../agent/src/os/download/image-fetcher.js';
import type { OsProgressStore } from '../../agent/src/os/os-progress.js';
import { OsUpdater } from '../../agent/src/os/os-updater.js';
import type { Power } from '../../agent/src/power/power.js';

/** The simulated health check every device reports (condition `Healthy/sim`). */
export const SIM_HEALTH_CHECK = 'Healthy/sim';

/** An uncommitted trial boot gives up after this long (the droplet's default is 5 min; a fleet reconnects fast). */
const COMMIT_TIMEOUT_MS = 120_000;

export interface SimAgentOptions {
  server: string;
  /** waits for the fleet's connect gate, then gives the credential */
  credential: () => Promise<string>;
  /** called at every welcome (the gate lets the next device in) */
  onWelcome: () => void;
  bootId: string;
  deviceType: string;
  backend: BootBackend;
  store: OsProgressStore;
  power: Power;
  fetchImage: ImageFetcher;
  logger: Logger;
}

/**
 * The agent of one boot of a simulated device: the droplet's real link, status reporter and OS updater (planner
 * and executor), without workloads, hooks, probes or system facts. Its health check is a condition the fleet sets.
 */
export class SimAgent {
  readonly link: AgentLink;
  readonly reporter: StatusReporter;
  readonly updater: OsUpdater;

  constructor(options: SimAgentOptions) {
    this.link = new AgentLink({
      server: options.server,
      credential: options.credential,
      hello: () => ({ agentVersion: 'sim-fleet', bootId: options.bootId }),
      logger: options.logger,
    });
    this.reporter = new StatusReporter({ link: this.link });
    this.updater = new OsUpdater({
      backend: options.backend,
      store: options.store,
      power: options.power,
      runShutdownHooks: async () => {},
      link: this.link,
      reporter: this.reporter,
      server: options.server,
      credential: options.credential,
      trustDirs: [],
      deviceType: options.deviceType,
      commitTimeoutMs: COMMIT_TIMEOUT_MS,
      logger: options.logger,
      fetchImage: options.fetchImage,
    });
    this.reporter.report({
      deviceInfo: {
        deviceType: options.deviceType,
        architecture: 'amd64',
        hardware: 'generic',
        operatingSystem: 'Linux',
        managedFeatures: { os: true, osUpgrade: true },
      },
    });
    this.link.onConnected(() => {
      options.onWelcome();
      this.reporter.resend();
    });
    this.link.addSpecConsumer(async (device: DesiredDevice) => this.updater.setDesired(device));
  }

  /** Sets the simulated health check; the updater plans again (a trial boot commits only while it passes). */
  setHealthy(healthy: boolean): void {
    this.reporter.setCondition(
      healthy
        ? { type: SIM_HEALTH_CHECK, status: 'True', reason: 'Passing', message: 'the simulated check passes' }
        : { type: SIM_HEALTH_CHECK, status: 'False', reason: 'Failing', message: 'the simulated check fails' },
    );
    this.updater.healthChanged();
  }

  async start(): Promise<void> {
    await this.updater.prime();
    this.link.start();
    this.updater.start();
  }

  async stop(): Promise<void> {
    await this.updater.stop();
    this.reporter.stop();
    await this.link.stop();
  }
}
