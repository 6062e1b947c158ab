import { execFile } from 'node:child_process';
import type { RunningService, ServiceExit, ServiceLaunch, WorkloadRuntime } from './runtime.js';

export type ContainerEngine = 'docker' | 'podman';

/** `outpost-<pod id>-<service>`: one container per service, found again by name after a restart of the agent. */
export function containerName(pod: string, service: string): string {
  const podId = pod.split('/').at(-1) ?? pod;
  return `outpost-${podId}-${service}`;
}

/** The `run` arguments of one service: foreground (its exit code is the container's), removed when it ends. */
export function containerRunArgs(launch: ServiceLaunch, name: string): string[] {
  const { service } = launch;
  if (service.image === undefined) throw new Error(`service ${service.name} has no image`);
  const args = [
    'run',
    '--rm',
    '--name',
    name,
    '--label',
    `outpost.pod=${launch.pod}`,
    '--label',
    `outpost.service=${service.name}`,
  ];
  // the workload user inside the container too (the image's own user is root more often than not)
  if (launch.runAs !== undefined) args.push('--user', `${launch.runAs.uid}:${launch.runAs.gid}`);
  for (const variable of launch.env) args.push('--env', `${variable.name}=${variable.value}`);
  if (service.workingDir !== undefined) args.push('--workdir', service.workingDir);
  const [entrypoint, ...commandArgs] = service.command ?? [];
  if (entrypoint !== undefined) args.push('--entrypoint', entrypoint);
  args.push(service.image, ...commandArgs, ...(service.args ?? []));
  return args;
}

/**
 * Whether `engine` is installed and its daemon (or podman itself) answers. Every device asks at start, so this
 * runs through node's execFile: execa (loaded below on first use) would stay in the memory of every agent, also
 * of a device without containers.
 */
export async function containerEngineAvailable(engine: ContainerEngine): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(engine, ['info', '--format', '{{json .}}'], { timeout: 10_000, maxBuffer: 16 * 2 ** 20 }, (err) =>
      resolve(err === null),
    );
  });
}

/** Services as containers through the docker or podman command line. */
export function containerRuntime(engine: ContainerEngine): WorkloadRuntime {
  return {
    kind: engine,
    async start(launch: ServiceLaunch): Promise<RunningService> {
      const name = containerName(launch.pod, launch.service.name);
      const { execa } = await import('execa');
      // a container left over from an agent that died is replaced, never run twice
      await execa(engine, ['rm', '--force', name], { reject: false, timeout: 30_000 });
      const log = { file: launch.logFile, append: true } as const;
      const subprocess = execa(engine, containerRunArgs(launch, name), {
        stdin: 'ignore',
        stdout: log,
        stderr: log,
        reject: false,
        forceKillAfterDelay: false,
      });
      const exited: Promise<ServiceExit> = subprocess.then(
        (result) => {
          if (result.exitCode === undefined) return { error: result.originalMessage || result.shortMessage };
          // 125: the engine could not create or start the container (unknown image, bad option, ...)
          if (result.exitCode === 125) return { exitCode: 125, error: `${engine} could not run the container` };
          return { exitCode: result.exitCode };
        },
        (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
      );
      const stop = async (graceMs: number): Promise<void> => {
        const seconds = String(Math.max(1, Math.ceil(graceMs / 1000)));
        await execa(engine, ['stop', '--time', seconds, name], { reject: false, timeout: graceMs + 30_000 });
        await exited;
      };
      // the container runs in the foreground of the agent's `run`: it does not outlive the agent
      return { containerId: name, exited, stop, release: stop };
    },
  };
}
