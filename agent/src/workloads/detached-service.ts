import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, open, readFile, rm, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { readProcStat, stillRunning } from './proc-stat.js';
import type { ServiceExit } from './runtime.js';

/**
 * The wrapper a process service runs under: it starts the service, writes its pid, waits for it and writes its
 * exit status, so that an agent which did not start it (it was restarted meanwhile) still learns how it ended.
 * It leads the service's process group, in a session of its own, so the agent's own signals never reach it.
 * SIGTERM/SIGINT/SIGHUP sent to the group are caught (not ignored: an ignored signal would be inherited by the
 * service), so the wrapper outlives the service and records its status. As in any non-interactive shell, the
 * service, started in the background, has SIGINT and SIGQUIT ignored; services are stopped with SIGTERM.
 */
const WRAPPER = [
  'pid_file=$1; exit_file=$2; shift 2',
  'trap : TERM INT HUP',
  '"$@" &',
  'child=$!',
  'printf "%s\\n" "$child" > "$pid_file"',
  'while :; do wait "$child"; code=$?; kill -0 "$child" 2>/dev/null || break; done',
  'printf "%s\\n" "$code" > "$exit_file"',
].join('\n');

const PID_FILE_WAIT_MS = 5_000;

export interface DetachedLaunch {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  logFile: string;
  /** where the wrapper writes the service's pid and its exit status (the service's user must be able to write) */
  pidFile: string;
  exitFile: string;
}

export interface DetachedProcess {
  /** the wrapper, when the agent is its parent (absent: a transient systemd unit started it) */
  child?: ChildProcess;
  wrapperPid: number;
  /** undefined when the wrapper had already ended when it was looked at */
  wrapperStartTime: string | undefined;
  servicePid: number;
}

/** Starts the wrapper's command line (argv) in its own session with stdio on the log file; answers its pid. */
export type WrapperStarter = (launch: DetachedLaunch, argv: string[]) => Promise<{ pid: number; child?: ChildProcess }>;

/** Starts a service under the wrapper, detached from the agent (by default as the agent's child in its own session). */
export async function launchDetached(
  launch: DetachedLaunch,
  startWrapper: WrapperStarter = spawnInOwnSession,
): Promise<DetachedProcess> {
  await findExecutable(launch.file, launch.env.PATH, launch.cwd);
  await Promise.all([rm(launch.pidFile, { force: true }), rm(launch.exitFile, { force: true })]);
  const argv = ['/bin/sh', '-c', WRAPPER, 'outpost-service', launch.pidFile, launch.exitFile, launch.file];
  const { pid: wrapperPid, child } = await startWrapper(launch, [...argv, ...launch.args]);
  const wrapperStartTime = (await readProcStat(wrapperPid))?.startTime;
  const servicePid = await waitForPidFile(launch.pidFile, async () =>
    child !== undefined
      ? child.exitCode !== null || child.signalCode !== null
      : wrapperStartTime === undefined || !(await stillRunning(wrapperPid, wrapperStartTime)),
  );
  await waitForExec(servicePid, wrapperPid);
  return { ...(child === undefined ? {} : { child }), wrapperPid, wrapperStartTime, servicePid };
}

/** The wrapper as the agent's child, leading a session of its own, stdio on the log file (not the agent's pipes). */
export async function spawnInOwnSession(
  launch: DetachedLaunch,
  argv: string[],
): Promise<{ pid: number; child: ChildProcess }> {
  const [file = '/bin/sh', ...args] = argv;
  const log = await open(launch.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: launch.cwd,
      env: launch.env,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      ...(launch.uid === undefined ? {} : { uid: launch.uid }),
      ...(launch.gid === undefined ? {} : { gid: launch.gid }),
    });
    await new Promise<void>((resolvePromise, reject) => {
      child.once('spawn', resolvePromise);
      child.once('error', reject);
    });
  } finally {
    await log.close();
  }
  child.unref(); // the agent may exit while its services run on
  if (child.pid === undefined) throw new Error(`${launch.file} could not be started`);
  return { pid: child.pid, child };
}

/**
 * Until the service has replaced the wrapper's forked copy with its own program: a signal that reached it in
 * between would be caught by the inherited trap and lost (a stop that does not stop). Until then its command line
 * is the wrapper's.
 */
async function waitForExec(servicePid: number, wrapperPid: number): Promise<void> {
  const deadline = Date.now() + PID_FILE_WAIT_MS;
  const wrapperCommand = await readFile(`/proc/${wrapperPid}/cmdline`).catch(() => undefined);
  while (wrapperCommand !== undefined && Date.now() < deadline) {
    const command = await readFile(`/proc/${servicePid}/cmdline`).catch(() => undefined);
    if (command === undefined || !command.equals(wrapperCommand)) return;
    await sleep(5);
  }
}

/** The service pid the wrapper wrote; it writes it at once, and before it ends. */
async function waitForPidFile(path: string, wrapperEnded: () => Promise<boolean>): Promise<number> {
  const deadline = Date.now() + PID_FILE_WAIT_MS;
  for (;;) {
    const pid = await readPid(path);
    if (pid !== undefined) return pid;
    if ((await wrapperEnded()) || Date.now() > deadline) {
      throw new Error('the service wrapper ended or stalled before it started the service');
    }
    await sleep(10);
  }
}

export async function readPid(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number(text.trim());
  return text.endsWith('\n') && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** How the wrapper says the service ended: its `$?` (128 + n: killed by signal n, as shells report it). */
export async function readExit(exitFile: string): Promise<ServiceExit> {
  const text = await readFile(exitFile, 'utf8').catch(() => '');
  const code = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(code) || code < 0) {
    return { error: 'it ended without leaving its exit status (its wrapper was killed)' };
  }
  const signal = code > 128 ? signalName(code - 128) : undefined;
  return signal === undefined ? { exitCode: code } : { signal };
}

function signalName(number: number): string | undefined {
  return Object.entries(osConstants.signals).find(([, n]) => n === number)?.[0];
}

/** Watches a wrapper: through its exit event when the agent is its parent, else by polling /proc. */
export function watchWrapper(options: {
  wrapperPid: number;
  wrapperStartTime: string | undefined;
  child?: ChildProcess;
  pollMs: number;
}): { ended: Promise<void>; release(): void } {
  let release = (): void => {};
  const ended = new Promise<void>((resolvePromise) => {
    const { child, wrapperPid, wrapperStartTime } = options;
    const done = (): void => {
      release();
      resolvePromise();
    };
    if (child !== undefined) {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      release = () => child.off('exit', done);
      return;
    }
    if (wrapperStartTime === undefined) return done();
    const timer = setInterval(() => {
      void stillRunning(wrapperPid, wrapperStartTime).then((running) => running || done());
    }, options.pollMs);
    timer.unref();
    release = () => clearInterval(timer);
  });
  return { ended, release: () => release() };
}

/** Checks that the command can be run, so a missing one is a start error rather than an exit of the shell. */
async function findExecutable(file: string, path: string | undefined, cwd: string): Promise<void> {
  const candidates = file.includes('/')
    ? [isAbsolute(file) ? file : resolve(cwd, file)]
    : (path ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, file));
  for (const candidate of candidates) {
    const isFile = await stat(candidate).then(
      (info) => info.isFile(),
      () => false,
    );
    if (
      isFile &&
      (await access(candidate, fsConstants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      return;
  }
  throw new Error(`${file}: no such executable${file.includes('/') ? '' : ' on PATH'}`);
}

const sleep = (ms: number): Promise<void> => new Promise((resolvePromise) => setTimeout(resolvePromise, ms));
