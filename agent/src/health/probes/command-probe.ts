import { runInProcessGroup } from '../../hooks/process-group.js';
import type { RunAs, WorkloadUser } from '../../workloads/workload-user.js';
import { userEnvironment } from '../../workloads/workload-user.js';
import type { Probe } from './probe.js';
import { healthy, missingMember, unhealthy } from './probe.js';

/** Lines of output kept for the message of a failing command. */
const KEPT_LINES = 3;

/** The PATH of a check run as the workload user (the agent's own may name folders only root can read). */
const SAFE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Command: argv runs without a shell in its own process group, as the workload user (as the agent itself when
 * it asks for `runAsRoot`, or where there is no workload user); exit status 0 is healthy. When the run's
 * timeout passes the whole group is killed (SIGTERM, SIGKILL after a second).
 */
export const commandProbe =
  (user: WorkloadUser): Probe =>
  async (spec, signal, timeoutMs) => {
    const command = spec.command;
    if (command === undefined) return missingMember(spec);
    const [file, ...args] = command.argv;
    if (file === undefined) return missingMember(spec);
    return runCommand(file, args, user.runAs(command.runAsRoot === true), signal, timeoutMs);
  };

async function runCommand(
  file: string,
  args: string[],
  runAs: RunAs | undefined,
  signal: AbortSignal,
  timeoutMs: number,
): ReturnType<Probe> {
  const tail: string[] = [];
  const outcome = await runInProcessGroup({
    file,
    args,
    // another user gets none of the agent's environment (it may hold a provisioning token)
    ...(runAs === undefined
      ? {}
      : { uid: runAs.uid, gid: runAs.gid, cwd: '/', env: { PATH: SAFE_PATH, ...userEnvironment(runAs) } }),
    // the monitor counts the timeout; this one only makes sure nothing is left behind
    timeoutMs: timeoutMs + 1_000,
    killGraceMs: 1_000,
    signal,
    onOutput: (_stream, line) => {
      if (line.trim() === '') return;
      tail.push(line);
      if (tail.length > KEPT_LINES) tail.shift();
    },
  });
  const said = tail.length > 0 ? `: ${tail.join(' | ')}` : '';
  if (outcome.error !== undefined) return unhealthy(`cannot run ${file}: ${outcome.error}`);
  if (outcome.exitCode === 0) return healthy(`${file} exited 0`);
  if (outcome.exitCode !== undefined) return unhealthy(`${file} exited ${outcome.exitCode}${said}`);
  return unhealthy(`${file} was ended by ${outcome.signal ?? 'a signal'}${said}`);
}
