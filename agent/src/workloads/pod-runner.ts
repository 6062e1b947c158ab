import { chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { notFound } from '@outpost/shared';
import type { DesiredPod, EnvVar, PodAction, PodService, PodStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { podPhaseOf } from './pod-phase.js';
import type { RuntimeSet } from './runtime.js';
import { userEnvironment } from './workload-user.js';
import type { RunAs } from './workload-user.js';
import { ServiceSupervisor } from './service-supervisor.js';
import type { SupervisorTuning } from './service-supervisor.js';

export interface PodRunnerOptions {
  pod: DesiredPod;
  /** {device_root}/data/workloads */
  workloadsDir: string;
  runtimes: RuntimeSet;
  tuning: SupervisorTuning;
  /** the environment every service starts from (PATH, HOME, ...) */
  baseEnv: EnvVar[];
  /** the user the services run as; absent: as the agent itself */
  runAs?: RunAs;
  onChange: () => void;
  logger: Logger;
}

/** `projects/p/regions/r/pods/web` → `p.r.web`: the pod's folder, logs included. */
export const podDirName = (pod: string): string => {
  const parts = pod.split('/');
  return [parts[1], parts[3], parts[5]].filter((p) => p !== undefined).join('.') || pod.replaceAll('/', '_');
};

/** Under {device_root}/data/workloads: the agent's records of the services it started (not a pod's folder). */
export const SERVICE_RECORDS_DIR = '.services';

/** One pod on this device: a supervisor per service. */
export class PodRunner {
  readonly name: string;
  readonly generation: number;
  private readonly services = new Map<string, ServiceSupervisor>();
  private readonly dir: string;

  constructor(private readonly options: PodRunnerOptions) {
    const { pod } = options;
    this.name = pod.name;
    this.generation = pod.generation;
    this.dir = join(options.workloadsDir, podDirName(pod.name));
    for (const service of pod.spec.services) {
      this.services.set(
        service.name,
        new ServiceSupervisor({
          launch: {
            pod: pod.name,
            service,
            workDir: this.dir,
            logFile: join(this.dir, `${service.name}.log`),
            recordFile: join(options.workloadsDir, SERVICE_RECORDS_DIR, podDirName(pod.name), `${service.name}.json`),
            env: this.envOf(service),
            ...(options.runAs === undefined ? {} : { runAs: options.runAs }),
          },
          runtime: async () => (service.image === undefined ? options.runtimes.process : options.runtimes.container()),
          policy: service.restartPolicy ?? pod.spec.restartPolicy,
          tuning: options.tuning,
          onChange: options.onChange,
          logger: options.logger,
        }),
      );
    }
  }

  get serviceNames(): string[] {
    return [...this.services.keys()];
  }

  /** the agent's record file of each service (see SERVICE_RECORDS_DIR) */
  recordFiles(): string[] {
    return [...this.services.values()].map((s) => s.recordFile);
  }

  /** the log file of each service */
  logFiles(): { service: string; path: string }[] {
    return this.serviceNames.map((service) => ({ service, path: join(this.dir, `${service}.log`) }));
  }

  async act(action: PodAction, service?: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // the pod's folder is its services' own; its log files stay the agent's (it opens them)
    if (this.options.runAs !== undefined) await chown(this.dir, this.options.runAs.uid, this.options.runAs.gid);
    const targets = service === undefined ? [...this.services.values()] : [this.supervisor(service)];
    const verb = action === 'START' ? 'start' : action === 'STOP' ? 'stop' : 'restart';
    await Promise.all(targets.map((s) => s[verb]()));
  }

  /** Stops every service for good. */
  async dispose(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.dispose()));
  }

  /** Lets go of every service as the agent stops (processes run on, for the next agent to adopt). */
  async release(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.release()));
  }

  status(now = new Date()): PodStatus {
    const serviceStatuses = [...this.services.values()].map((s) => s.status);
    return {
      phase: podPhaseOf(serviceStatuses),
      serviceStatuses,
      failureCount: [...this.services.values()].reduce((n, s) => n + s.failures, 0),
      observedGeneration: this.generation,
      reportTime: now.toISOString(),
    };
  }

  private supervisor(service: string): ServiceSupervisor {
    const found = this.services.get(service);
    if (found === undefined) {
      throw notFound(`pod ${this.name} has no service "${service}" (it has ${this.serviceNames.join(', ')})`);
    }
    return found;
  }

  private envOf(service: PodService): EnvVar[] {
    const env = new Map<string, string>();
    for (const e of this.options.baseEnv) env.set(e.name, e.value);
    const runAs = this.options.runAs;
    if (runAs !== undefined) for (const [name, value] of Object.entries(userEnvironment(runAs))) env.set(name, value);
    env.set('OUTPOST_POD', this.options.pod.name);
    env.set('OUTPOST_SERVICE', service.name);
    env.set('OUTPOST_POD_DIR', this.dir);
    for (const e of service.env ?? []) env.set(e.name, e.value);
    return [...env].map(([name, value]) => ({ name, value }));
  }
}
