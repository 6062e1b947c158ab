import { createHash } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { mkdir, readdir } from 'node:fs/promises';
import { readBootId } from '../runtime-facts.js';
import { launchDetached, readExit, spawnInOwnSession, watchWrapper } from './detached-service.js';
import { stillRunning } from './proc-stat.js';
import type { RunningService, ServiceLaunch, WorkloadRuntime } from './runtime.js';
import { systemdManagesServices, transientUnitName, transientUnitStarter } from './transient-unit.js';
import { readServiceRecord, removeServiceRecord, writeServiceRecord } from './service-record.js';

export interface ProcessRuntimeOptions {
  /** how often a service that is not the agent's child (adopted, or in a transient unit) is looked for in /proc */
  pollMs?: number;
  /** run services as transient systemd units; default: where systemd is PID 1 and the agent is root */
  transientUnits?: () => Promise<boolean>;
  /** the kernel's boot id; default /proc/sys/kernel/random/boot_id */
  bootId?: () => Promise<string>;
}

/**
 * Services as plain processes that outlive the agent: each runs under a small shell wrapper that leads its own
 * session and process group (so stopping it also stops whatever it started, and the agent's own signals never
 * reach it), as the launch's user, with stdout and stderr appended to its log file. The agent records each one
 * (pids and start times) so that the next agent adopts it instead of starting it again.
 */
export function processRuntime(options: ProcessRuntimeOptions = {}): WorkloadRuntime {
  const pollMs = options.pollMs ?? 1_000;
  const bootId = options.bootId ?? readBootId;
  let inUnits: Promise<boolean> | undefined;
  const transientUnits = (): Promise<boolean> => (inUnits ??= (options.transientUnits ?? systemdManagesServices)());
  return {
    kind: 'process',
    async start(launch: ServiceLaunch): Promise<RunningService> {
      const [file, ...rest] = launch.service.command ?? [];
      if (file === undefined) throw new Error(`service ${launch.service.name} has no command`);
      await stopLeftover(launch, await bootId());
      const files = runFiles(launch);
      const detached = await launchDetached(
        {
          file,
          args: [...rest, ...(launch.service.args ?? [])],
          cwd: launch.service.workingDir ?? launch.workDir,
          env: Object.fromEntries(launch.env.map((e) => [e.name, e.value])),
          logFile: launch.logFile,
          ...files,
          ...(launch.runAs === undefined ? {} : { uid: launch.runAs.uid, gid: launch.runAs.gid }),
        },
        (await transientUnits())
          ? transientUnitStarter(transientUnitName(launch.pod, launch.service.name))
          : spawnInOwnSession,
      );
      const startedAt = new Date().toISOString();
      if (detached.wrapperStartTime !== undefined) {
        await mkdir(dirname(launch.recordFile), { recursive: true, mode: 0o700 });
        await writeServiceRecord(launch.recordFile, {
          bootId: await bootId(),
          wrapperPid: detached.wrapperPid,
          wrapperStartTime: detached.wrapperStartTime,
          servicePid: detached.servicePid,
          startedAt,
          launchDigest: launchDigest(launch),
        });
      }
      return supervised(launch, detached, pollMs, { startTime: startedAt });
    },

    async adopt(launch: ServiceLaunch): Promise<RunningService | undefined> {
      const record = await readServiceRecord(launch.recordFile);
      if (record === undefined) return undefined;
      if (record.bootId !== (await bootId()) || record.launchDigest !== launchDigest(launch)) {
        await stopLeftover(launch, await bootId());
        return undefined;
      }
      return supervised(launch, { ...record, child: undefined }, pollMs, {
        startTime: record.startedAt,
        adopted: true,
      });
    },

    async endUnclaimed(recordsDir: string, claimed: ReadonlySet<string>, graceMs: number): Promise<string[]> {
      return endUnclaimed(recordsDir, claimed, await bootId(), graceMs);
    },
  };
}

/** Where the wrapper of a service writes its pid and exit status: the pod's folder, which its user may write. */
function runFiles(launch: ServiceLaunch): { pidFile: string; exitFile: string } {
  const base = join(launch.workDir, `.outpost-${launch.service.name}`);
  return { pidFile: `${base}.pid`, exitFile: `${base}.exit` };
}

/** What makes a launch the same one again: command, arguments, environment, folder and user. */
export function launchDigest(launch: ServiceLaunch): string {
  const { service } = launch;
  const what = [service.command, service.args, service.workingDir, launch.workDir, launch.env, launch.runAs];
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

/** A service an earlier agent started that is not to be adopted (its pod changed) is stopped, if it still runs. */
const stopLeftover = (launch: ServiceLaunch, currentBoot: string, graceMs = 0): Promise<void> =>
  endRecorded(launch.recordFile, currentBoot, graceMs);

/**
 * Ends the recorded service if it is still the process recorded (same boot, same pid and start time): SIGTERM to its
 * group, SIGKILL after `graceMs`; then forgets the record.
 */
async function endRecorded(recordFile: string, currentBoot: string, graceMs: number): Promise<void> {
  const record = await readServiceRecord(recordFile);
  if (record === undefined) return;
  const { wrapperPid, wrapperStartTime } = record;
  if (record.bootId === currentBoot && (await stillRunning(wrapperPid, wrapperStartTime))) {
    signalGroup(wrapperPid, graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (await stillRunning(wrapperPid, wrapperStartTime))) await sleep(50);
    signalGroup(wrapperPid, 'SIGKILL');
  }
  await removeServiceRecord(recordFile);
}

/**
 * Ends the services recorded under `recordsDir` (`<pod folder>/<service>.json`) that no pod claims: their pod was
 * removed while no agent ran, or the agent no longer knows it.
 */
async function endUnclaimed(
  recordsDir: string,
  claimed: ReadonlySet<string>,
  currentBoot: string,
  graceMs: number,
): Promise<string[]> {
  const ended: string[] = [];
  for (const pod of await readdir(recordsDir).catch(() => [])) {
    for (const entry of await readdir(join(recordsDir, pod)).catch(() => [])) {
      const recordFile = join(recordsDir, pod, entry);
      if (!entry.endsWith('.json') || claimed.has(recordFile)) continue;
      await endRecorded(recordFile, currentBoot, graceMs);
      ended.push(recordFile);
    }
  }
  return ended;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function supervised(
  launch: ServiceLaunch,
  proc: {
    wrapperPid: number;
    wrapperStartTime: string | undefined;
    servicePid: number;
    child?: ChildProcess | undefined;
  },
  pollMs: number,
  started: { startTime: string; adopted?: true },
): RunningService {
  const { exitFile } = runFiles(launch);
  const watch = watchWrapper({
    wrapperPid: proc.wrapperPid,
    wrapperStartTime: proc.wrapperStartTime,
    ...(proc.child === undefined ? {} : { child: proc.child }),
    pollMs,
  });
  let ended = false;
  const exited = watch.ended.then(async () => {
    ended = true;
    await removeServiceRecord(launch.recordFile);
    return readExit(exitFile);
  });
  const group = proc.wrapperPid;
  return {
    pid: proc.servicePid,
    ...started,
    exited,
    async stop(graceMs: number) {
      if (ended) return void (await exited);
      signalGroup(group, 'SIGTERM');
      const forced = setTimeout(() => signalGroup(group, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(forced);
      signalGroup(group, 'SIGKILL'); // whatever of the group outlived its leader
    },
    async release() {
      watch.release();
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
