import type { EnvVar, PodService } from '@outpost/shared';
import type { RunAs } from './workload-user.js';

/** Everything a runtime needs to start one service of one pod. */
export interface ServiceLaunch {
  /** projects/{p}/regions/{r}/pods/{pod} */
  pod: string;
  service: PodService;
  /** the pod's folder under {device_root}/data/workloads: the default working directory */
  workDir: string;
  /** stdout and stderr are appended here */
  logFile: string;
  /** the agent's own record of a detached service, for the next agent to adopt it (under data/workloads/.services) */
  recordFile: string;
  /** the environment the service sees (besides what the runtime adds) */
  env: EnvVar[];
  /** the user the service runs as; absent: as the agent itself */
  runAs?: RunAs;
}

/** How a service ended. */
export interface ServiceExit {
  exitCode?: number;
  signal?: string;
  /** it could not be started, or its runtime failed */
  error?: string;
}

export interface RunningService {
  pid?: number;
  containerId?: string;
  /** when it started (ISO), as its runtime recorded it */
  startTime?: string;
  /** it was started by an earlier agent, and this one took it over */
  adopted?: true;
  /** settles when the service has ended, however it ended; never rejects */
  exited: Promise<ServiceExit>;
  /** Asks it to end (SIGTERM or `docker stop`), forcing it after `graceMs`; resolves once it has ended. */
  stop(graceMs: number): Promise<void>;
  /** The agent lets go of it as it stops: a process keeps running (the next agent adopts it), a container is stopped. */
  release(graceMs: number): Promise<void>;
}

export type RuntimeKind = 'process' | 'docker' | 'podman';

/** Starts services: processes (always available) or containers (docker or podman, when installed). */
export interface WorkloadRuntime {
  kind: RuntimeKind;
  /** Starts the service; rejects only when the runtime itself cannot be used. */
  start(launch: ServiceLaunch): Promise<RunningService>;
  /** The service an earlier agent left running (or that ended meanwhile), if this runtime can take it over. */
  adopt?(launch: ServiceLaunch): Promise<RunningService | undefined>;
  /** Ends what earlier agents left running under `recordsDir` that no pod claims; answers the records it ended. */
  endUnclaimed?(recordsDir: string, claimed: ReadonlySet<string>, graceMs: number): Promise<string[]>;
}

/** The runtimes of one device: processes always, a container runtime when one answers. */
export interface RuntimeSet {
  process: WorkloadRuntime;
  /** resolved lazily: the first service with an image asks for it */
  container(): Promise<WorkloadRuntime | undefined>;
}
