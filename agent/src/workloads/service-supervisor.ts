import type { RestartPolicy, ServiceStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { REASONS, restartDelayMs, shouldRestart } from './pod-phase.js';
import { rotateLogIfLarge } from './service-log.js';
import type { RunningService, ServiceExit, ServiceLaunch, WorkloadRuntime } from './runtime.js';

export interface SupervisorTuning {
  /** first delay before restarting a service that ended; doubled on every restart in a row */
  restartInitialMs: number;
  restartMaxMs: number;
  /** how long a stopped service may take to end before it is killed */
  stopGraceMs: number;
  /** a service that ran this long restarts with the initial delay again */
  stableAfterMs: number;
}

export const DEFAULT_SUPERVISOR_TUNING: SupervisorTuning = {
  restartInitialMs: 1_000,
  restartMaxMs: 60_000,
  stopGraceMs: 10_000,
  stableAfterMs: 10_000,
};

export interface SupervisorOptions {
  launch: ServiceLaunch;
  /** the runtime for this service, or undefined when the device has none (an image without docker/podman) */
  runtime: () => Promise<WorkloadRuntime | undefined>;
  policy: RestartPolicy | undefined;
  tuning: SupervisorTuning;
  /** called after every change of `status` */
  onChange: () => void;
  logger: Logger;
  now?: () => Date;
}

/**
 * Keeps one service of a pod in the state asked of it: starts it, restarts it under its restart policy with
 * exponential backoff, stops it on command. Every action runs in order, one at a time.
 */
export class ServiceSupervisor {
  private state: ServiceStatus;
  private running: RunningService | undefined;
  private wanted = false;
  private launches = 0;
  private startedAt = 0;
  private restartsInARow = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private failureCount = 0;
  private readonly now: () => Date;

  constructor(private readonly options: SupervisorOptions) {
    this.now = options.now ?? (() => new Date());
    this.state = { name: options.launch.service.name, state: 'WAITING', reason: REASONS.pending, restartCount: 0 };
  }

  get recordFile(): string {
    return this.options.launch.recordFile;
  }

  get status(): ServiceStatus {
    return this.state;
  }

  /** failures (non-zero exits, start errors) since the supervisor was created */
  get failures(): number {
    return this.failureCount;
  }

  start(): Promise<void> {
    return this.serial(async () => {
      this.wanted = true;
      this.restartsInARow = 0;
      if (this.running !== undefined) return;
      clearTimeout(this.restartTimer);
      await this.launch();
    });
  }

  /** Stops it until the next start (a command, or the agent's next start or boot: a stop is not persisted). */
  stop(): Promise<void> {
    return this.serial(async () => {
      this.wanted = false;
      await this.halt();
      this.update({ state: 'TERMINATED', reason: REASONS.stopped, finishTime: this.now().toISOString() });
    });
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      this.wanted = true;
      this.restartsInARow = 0;
      await this.halt();
      this.state = { ...this.state, restartCount: (this.state.restartCount ?? 0) + 1 };
      await this.launch();
    });
  }

  /** Stops it for good (the pod was removed or changed); reports nothing more. */
  dispose(): Promise<void> {
    return this.serial(async () => {
      this.wanted = false;
      await this.halt();
    });
  }

  /** The agent stops: lets go of the service without stopping it (a process runs on, the next agent adopts it). */
  release(): Promise<void> {
    return this.serial(async () => {
      this.wanted = false;
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
      const running = this.running;
      this.running = undefined;
      this.launches += 1; // its exit is the next agent's to handle
      if (running !== undefined) await running.release(this.options.tuning.stopGraceMs);
    });
  }

  private async halt(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const running = this.running;
    this.running = undefined;
    this.launches += 1; // its exit is no longer ours to handle
    if (running !== undefined) await running.stop(this.options.tuning.stopGraceMs);
  }

  private async launch(): Promise<void> {
    const { launch, logger } = this.options;
    const runtime = await this.options.runtime();
    if (runtime === undefined) {
      this.update({
        state: 'WAITING',
        reason: REASONS.runtimeUnavailable,
        message: 'the service has an image, but neither docker nor podman is available on this device',
      });
      return;
    }
    const launchNumber = ++this.launches;
    const mayAdopt = launchNumber === 1;
    let running: RunningService;
    try {
      const adopted = mayAdopt ? await runtime.adopt?.(launch) : undefined;
      if (adopted === undefined) await rotateLogIfLarge(launch.logFile);
      running = adopted ?? (await runtime.start(launch));
    } catch (err) {
      this.ended(launchNumber, { error: err instanceof Error ? err.message : String(err) }, runtime.kind);
      return;
    }
    this.running = running;
    this.startedAt = running.adopted && running.startTime !== undefined ? Date.parse(running.startTime) : Date.now();
    logger.info(
      { pod: launch.pod, service: launch.service.name, pid: running.pid },
      running.adopted ? 'service adopted (started by an earlier agent)' : 'service started',
    );
    this.state = {
      name: launch.service.name,
      state: 'RUNNING',
      runtime: runtime.kind,
      reason: REASONS.started,
      startTime: running.startTime ?? this.now().toISOString(),
      restartCount: this.state.restartCount ?? 0,
      ...(running.pid === undefined ? {} : { pid: running.pid }),
      ...(running.containerId === undefined ? {} : { containerId: running.containerId }),
    };
    this.options.onChange();
    void running.exited.then((exit) => this.serial(async () => this.ended(launchNumber, exit, runtime.kind)));
  }

  private ended(launchNumber: number, exit: ServiceExit, runtime: WorkloadRuntime['kind']): void {
    if (launchNumber !== this.launches) return; // stopped or restarted on purpose meanwhile
    this.running = undefined;
    const { launch, logger, tuning } = this.options;
    const clean = exit.error === undefined && exit.signal === undefined && exit.exitCode === 0;
    if (!clean) this.failureCount += 1;
    logger.info({ pod: launch.pod, service: launch.service.name, ...exit }, 'service ended');
    const ended: ServiceStatus = {
      name: launch.service.name,
      state: 'TERMINATED',
      runtime,
      reason: clean
        ? REASONS.completed
        : exit.exitCode === undefined && exit.signal === undefined
          ? REASONS.startError
          : REASONS.error,
      ...(exit.error === undefined ? {} : { message: exit.error }),
      ...(this.state.startTime === undefined ? {} : { startTime: this.state.startTime }),
      finishTime: this.now().toISOString(),
      ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
      ...(exit.signal === undefined ? {} : { signal: exit.signal }),
      restartCount: this.state.restartCount ?? 0,
    };
    if (!this.wanted || !shouldRestart(this.options.policy, clean)) {
      this.state = ended;
      this.options.onChange();
      return;
    }
    if (this.startedAt > 0 && Date.now() - this.startedAt >= tuning.stableAfterMs) this.restartsInARow = 0;
    const delayMs = restartDelayMs(this.restartsInARow++, tuning.restartInitialMs, tuning.restartMaxMs);
    this.state = { ...ended, state: 'RESTARTING', reason: REASONS.restarting, message: restartMessage(ended, delayMs) };
    this.options.onChange();
    this.restartTimer = setTimeout(() => {
      void this.serial(async () => {
        if (!this.wanted || this.running !== undefined) return;
        this.state = { ...this.state, restartCount: (this.state.restartCount ?? 0) + 1 };
        await this.launch();
      });
    }, delayMs);
  }

  private update(change: Partial<ServiceStatus>): void {
    const { pid: _pid, containerId: _containerId, ...kept } = this.state;
    this.state = { ...kept, ...change };
    if (change.state !== 'TERMINATED') delete this.state.finishTime;
    if (change.message === undefined) delete this.state.message;
    this.options.onChange();
  }

  private serial(action: () => Promise<void>): Promise<void> {
    const next = this.queue.then(action);
    this.queue = next.catch((err: unknown) =>
      this.options.logger.error({ err, service: this.options.launch.service.name }, 'a service action failed'),
    );
    return next;
  }
}

function restartMessage(ended: ServiceStatus, delayMs: number): string {
  const how = ended.message ?? (ended.signal ? `killed by ${ended.signal}` : `exited with ${ended.exitCode ?? '?'}`);
  return `${how}; restarting in ${Math.round(delayMs / 100) / 10} s`;
}
