import type { EnvVar } from '@outpost/shared';
import type { AgentLink } from '../link/agent-link.js';
import type { Logger } from '../logging/logger.js';
import { deviceRuntimes } from './device-runtimes.js';
import { registerPodCommands } from './pod-commands.js';
import { startPodStatusReports } from './pod-status-reports.js';
import type { RuntimeSet } from './runtime.js';
import type { SupervisorTuning } from './service-supervisor.js';
import { WorkloadManager } from './workload-manager.js';
import type { WorkloadUser } from './workload-user.js';

export interface WorkloadOptions {
  runtimes?: RuntimeSet;
  tuning?: Partial<SupervisorTuning>;
  /** whom services run as; default the agent itself */
  workloadUser?: WorkloadUser;
  /** the device's environment for pods started from now on (the proxy of spec.proxyConfig) */
  deviceEnv?: () => EnvVar[];
}

export interface Workloads {
  manager: WorkloadManager;
  /** stops reporting and lets go of every pod: process services run on, for the next agent to adopt */
  stop(): Promise<void>;
}

/**
 * The device's pods: starts the last desired ones at once (connected or not: spec 000 rule 5), takes pod
 * commands, and reports pod status over the link.
 */
export function startWorkloads(
  link: AgentLink,
  dataDir: string,
  initialPods: readonly unknown[] | undefined,
  logger: Logger,
  options: WorkloadOptions = {},
): Workloads {
  const manager = new WorkloadManager({
    dataDir,
    runtimes: options.runtimes ?? deviceRuntimes(logger),
    logger,
    ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
    ...(options.workloadUser === undefined ? {} : { workloadUser: options.workloadUser }),
    ...(options.deviceEnv === undefined ? {} : { deviceEnv: options.deviceEnv }),
  });
  const stopReports = startPodStatusReports(link, manager);
  const stopCommands = registerPodCommands(link, manager);
  manager.setDesired(initialPods).catch((err: unknown) => logger.error({ err }, 'cannot start the pods'));
  return {
    manager,
    async stop() {
      stopCommands();
      stopReports();
      await manager.release();
    },
  };
}
