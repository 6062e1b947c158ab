import type { RunningService, ServiceExit, ServiceLaunch, WorkloadRuntime } from './runtime.js';

/**
 * Services as plain processes through execa. Each runs in its own process group (so stopping it also stops
 * whatever it started), as the launch's user, with stdout and stderr appended to its log file (opened by the agent).
 */
export function processRuntime(): WorkloadRuntime {
  return {
    kind: 'process',
    async start(launch: ServiceLaunch): Promise<RunningService> {
      const [file, ...rest] = launch.service.command ?? [];
      if (file === undefined) throw new Error(`service ${launch.service.name} has no command`);
      const log = { file: launch.logFile, append: true } as const;
      // loaded on first use: a device without process services never pays for execa's memory
      const { execa } = await import('execa');
      const subprocess = execa(file, [...rest, ...(launch.service.args ?? [])], {
        cwd: launch.service.workingDir ?? launch.workDir,
        env: Object.fromEntries(launch.env.map((e) => [e.name, e.value])),
        extendEnv: false,
        stdin: 'ignore',
        stdout: log,
        stderr: log,
        detached: true,
        reject: false,
        forceKillAfterDelay: false,
        ...(launch.runAs === undefined ? {} : { uid: launch.runAs.uid, gid: launch.runAs.gid }),
      });
      const pid = subprocess.pid;
      const exited: Promise<ServiceExit> = subprocess.then(
        (result) => {
          if (result.failed && result.exitCode === undefined && result.signal === undefined) {
            return { error: result.originalMessage || result.shortMessage };
          }
          return {
            ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
            ...(result.signal === undefined ? {} : { signal: result.signal }),
          };
        },
        (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
      );
      let ended = false;
      void exited.then(() => (ended = true));
      return {
        ...(pid === undefined ? {} : { pid }),
        exited,
        async stop(graceMs: number) {
          if (ended || pid === undefined) return void (await exited);
          signalGroup(pid, 'SIGTERM');
          const forced = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
          await exited;
          clearTimeout(forced);
          signalGroup(pid, 'SIGKILL'); // whatever of the group outlived its leader
        },
      };
    },
  };
}

/** Signals a whole process group; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to signal
  }
}
