import { join } from 'node:path';
import { desiredPodSchema, notFound } from '@outpost/shared';
import type { DesiredPod, EnvVar, PodControlArgs, PodStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { PodRunner, SERVICE_RECORDS_DIR } from './pod-runner.js';
import type { RuntimeSet } from './runtime.js';
import { DEFAULT_SUPERVISOR_TUNING } from './service-supervisor.js';
import { AGENT_ITSELF } from './workload-user.js';
import type { RunAs, WorkloadUser } from './workload-user.js';
import type { SupervisorTuning } from './service-supervisor.js';

export interface WorkloadManagerOptions {
  /** {device_root}/data: pods live in its `workloads/` folder */
  dataDir: string;
  runtimes: RuntimeSet;
  logger: Logger;
  tuning?: Partial<SupervisorTuning>;
  /** the environment services start from; default PATH, HOME, LANG and TZ of the agent */
  baseEnv?: EnvVar[];
  /** whom services run as; default the agent itself */
  workloadUser?: WorkloadUser;
  /** added to baseEnv for each pod as it starts (the device's proxy: HTTP_PROXY, ...); a service's own env wins */
  deviceEnv?: () => EnvVar[];
}

export interface PodReport {
  name: string;
  status: PodStatus;
}

/**
 * Runs the device's pods (design.md "Workloads"): converges on the pods of the desired device, and carries out
 * start/stop/restart commands. A stop lasts only until the pod is started again or the device boots again
 * (spec 000 rule 5): the deployment itself is the desired device's, persisted by the agent.
 */
export class WorkloadManager {
  private readonly runners = new Map<string, PodRunner>();
  /** pods the device was given but cannot run (an invalid spec) */
  private readonly refused = new Map<string, PodStatus>();
  private readonly listeners = new Set<(pod: string) => void>();
  private readonly tuning: SupervisorTuning;
  private readonly baseEnv: EnvVar[];
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private leftoversEnded = false;

  constructor(private readonly options: WorkloadManagerOptions) {
    this.tuning = { ...DEFAULT_SUPERVISOR_TUNING, ...options.tuning };
    this.baseEnv = options.baseEnv ?? defaultBaseEnv();
  }

  /** Converges on these pods (the loosely typed `pods` of the desired device; absent means none). */
  setDesired(pods: readonly unknown[] | undefined): Promise<void> {
    return this.serial(() => this.reconcile(pods ?? []));
  }

  /** Starts, stops or restarts a pod or one of its services; answers the pod's status after it. */
  control(args: PodControlArgs): Promise<PodStatus> {
    return this.serial(async () => {
      const runner = this.runners.get(args.pod);
      if (runner === undefined) {
        const refused = this.refused.get(args.pod);
        if (refused !== undefined) throw notFound(`pod ${args.pod} cannot run on this device: ${refused.error}`);
        throw notFound(`pod ${args.pod} is not deployed on this device`);
      }
      await runner.act(args.action, args.service);
      return runner.status();
    });
  }

  /** The status of the named pods (default: all). */
  reports(names?: readonly string[]): PodReport[] {
    const wanted = names ?? [...this.runners.keys(), ...this.refused.keys()];
    const reports: PodReport[] = [];
    for (const name of wanted) {
      const status = this.runners.get(name)?.status() ?? this.refused.get(name);
      if (status !== undefined) reports.push({ name, status });
    }
    return reports;
  }

  /** Log files of every service of every pod (for the debug bundle). */
  logFiles(): { pod: string; service: string; path: string }[] {
    return [...this.runners.values()].flatMap((r) => r.logFiles().map((l) => ({ pod: r.name, ...l })));
  }

  /** Called with a pod's name whenever its status may have changed. */
  onChange(listener: (pod: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every pod. */
  stop(): Promise<void> {
    return this.serial(async () => {
      this.stopped = true;
      await Promise.all([...this.runners.values()].map((r) => r.dispose()));
      this.runners.clear();
    });
  }

  /**
   * The agent stops (a restart, an update): lets go of every pod without stopping its process services, which the
   * next agent adopts with their pids; container services are stopped.
   */
  release(): Promise<void> {
    return this.serial(async () => {
      this.stopped = true;
      await Promise.all([...this.runners.values()].map((r) => r.release()));
      this.runners.clear();
    });
  }

  private async reconcile(pods: readonly unknown[]): Promise<void> {
    if (this.stopped) return;
    const desired = new Map<string, DesiredPod>();
    this.refused.clear();
    for (const raw of pods) {
      const parsed = desiredPodSchema.safeParse(raw);
      if (parsed.success) {
        desired.set(parsed.data.name, parsed.data);
        continue;
      }
      const { name, generation } = (raw ?? {}) as { name?: unknown; generation?: unknown };
      if (typeof name !== 'string') continue;
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      this.refused.set(name, {
        phase: 'FAILED',
        error: `this agent cannot run the pod: ${problems}`,
        ...(typeof generation === 'number' ? { observedGeneration: generation } : {}),
        reportTime: new Date().toISOString(),
      });
      this.notify(name);
    }
    for (const [name, runner] of [...this.runners]) {
      if (desired.get(name)?.generation === runner.generation) continue;
      this.options.logger.info({ pod: name }, desired.has(name) ? 'pod changed: restarting it' : 'pod removed');
      this.runners.delete(name);
      await runner.dispose();
    }
    for (const [name, pod] of desired) {
      if (this.runners.has(name)) continue;
      const runner = new PodRunner({
        pod,
        workloadsDir: join(this.options.dataDir, 'workloads'),
        runtimes: this.options.runtimes,
        tuning: this.tuning,
        baseEnv: [...this.baseEnv, ...(this.options.deviceEnv?.() ?? [])],
        ...runAsOption((this.options.workloadUser ?? AGENT_ITSELF).runAs(pod.spec.runAsRoot === true)),
        onChange: () => this.notify(name),
        logger: this.options.logger,
      });
      this.runners.set(name, runner);
      this.options.logger.info({ pod: name, generation: pod.generation }, 'starting pod');
      await runner.act('START');
    }
    if (!this.leftoversEnded) {
      this.leftoversEnded = true;
      await this.endUnclaimedServices();
    }
  }

  /** Once the first pods are running (or adopted): ends what earlier agents ran for pods no longer known. */
  private async endUnclaimedServices(): Promise<void> {
    const claimed = new Set([...this.runners.values()].flatMap((r) => r.recordFiles()));
    const recordsDir = join(this.options.dataDir, 'workloads', SERVICE_RECORDS_DIR);
    const ended = await this.options.runtimes.process.endUnclaimed?.(recordsDir, claimed, this.tuning.stopGraceMs);
    if (ended !== undefined && ended.length > 0) {
      this.options.logger.info(
        { records: ended },
        'ended services left by an earlier agent for pods it no longer runs',
      );
    }
  }

  private notify(pod: string): void {
    for (const listener of this.listeners) listener(pod);
  }

  private serial<T>(action: () => Promise<T>): Promise<T> {
    const next = this.queue.then(action);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

const runAsOption = (runAs: RunAs | undefined): { runAs?: RunAs } => (runAs === undefined ? {} : { runAs });

function defaultBaseEnv(): EnvVar[] {
  const env: EnvVar[] = [];
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env.push({ name, value });
  }
  if (!env.some((e) => e.name === 'PATH')) env.push({ name: 'PATH', value: '/usr/local/bin:/usr/bin:/bin' });
  return env;
}
