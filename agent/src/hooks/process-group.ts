import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How long a process group gets between SIGTERM and SIGKILL once its time is up. */
export const DEFAULT_KILL_GRACE_MS = 5_000;

/** Longest line kept from a child's output; longer lines are cut. */
const MAX_LINE_CHARS = 8 * 1024;

/** After the leader exits, how long to wait for the rest of its output before returning. */
const OUTPUT_DRAIN_MS = 500;

export interface ProcessGroupRun {
  file: string;
  args?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** run as this user and group (the agent must be root); the supplementary groups are dropped */
  uid?: number;
  gid?: number;
  /** past this the whole process group gets SIGTERM, then SIGKILL after `killGraceMs` */
  timeoutMs: number;
  killGraceMs?: number;
  /** each line the process group writes; without it, output is discarded */
  onOutput?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** aborting ends the run early, as a timeout does (but `timedOut` stays false) */
  signal?: AbortSignal;
}

export interface ProcessOutcome {
  /** absent when a signal ended the process or it never started */
  exitCode?: number;
  signal?: NodeJS.Signals;
  timedOut: boolean;
  durationMs: number;
  /** why the process could not start (e.g. ENOENT) */
  error?: string;
}

/**
 * Runs a program as the leader of a new process group (`detached`), so that everything it starts can be
 * ended together: past its timeout the group gets SIGTERM, and SIGKILL when any of it is still there after
 * the grace period. Resolves once the leader has exited (and, after a timeout, the group is gone or killed).
 * Processes a leader leaves behind when it exits in time are left alone: a hook may start a daemon.
 */
export function runInProcessGroup(run: ProcessGroupRun): Promise<ProcessOutcome> {
  const started = performance.now();
  const grace = run.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const output = run.onOutput === undefined ? 'ignore' : 'pipe';
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(run.file, [...(run.args ?? [])], {
        detached: true,
        stdio: ['ignore', output, output],
        ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
        ...(run.env === undefined ? {} : { env: run.env }),
        ...(run.uid === undefined ? {} : { uid: run.uid }),
        ...(run.gid === undefined ? {} : { gid: run.gid }),
      });
    } catch (err) {
      resolve({ timedOut: false, durationMs: 0, error: describeError(err) });
      return;
    }
    const pid = child.pid;
    let timedOut = false;
    let ending: Promise<void> | undefined;
    const elapsed = (): number => Math.round(performance.now() - started);

    const onLine = run.onOutput;
    const closed = onLine
      ? Promise.all([
          forEachLine(child.stdout, (l) => onLine('stdout', l)),
          forEachLine(child.stderr, (l) => onLine('stderr', l)),
        ])
      : Promise.resolve();

    /** SIGTERM to the group, then SIGKILL to whatever of it is left after the grace period. */
    const endGroup = (): Promise<void> => {
      ending ??= (async () => {
        if (pid === undefined) return;
        signalGroup(pid, 'SIGTERM');
        const deadline = Date.now() + grace;
        while (Date.now() < deadline && groupExists(pid)) await sleep(Math.min(50, grace));
        signalGroup(pid, 'SIGKILL');
      })();
      return ending;
    };

    const timer = setTimeout(() => {
      timedOut = true;
      void endGroup();
    }, run.timeoutMs);
    const onAbort = (): void => void endGroup();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    if (run.signal?.aborted) onAbort();

    let settled = false;
    const finish = (outcome: ProcessOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };

    child.once('error', (err) => {
      // the program could not be started (no 'exit' follows)
      if (pid === undefined) finish({ timedOut: false, durationMs: elapsed(), error: describeError(err) });
    });
    child.once('exit', (code, signal) => {
      const durationMs = elapsed();
      void (async () => {
        if (ending !== undefined) await ending;
        await Promise.race([closed, sleep(OUTPUT_DRAIN_MS)]);
        const outcome: ProcessOutcome = { timedOut, durationMs };
        if (code !== null) outcome.exitCode = code;
        if (signal !== null) outcome.signal = signal;
        finish(outcome);
      })();
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Calls `onLine` for each line of a stream; resolves when it ends. */
function forEachLine(stream: Readable | null, onLine: (line: string) => void): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolve) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        onLine(pending.slice(0, Math.min(newline, MAX_LINE_CHARS)));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      if (pending.length > MAX_LINE_CHARS) {
        onLine(pending.slice(0, MAX_LINE_CHARS));
        pending = '';
      }
    });
    const end = (): void => {
      if (pending !== '') onLine(pending);
      pending = '';
      resolve();
    };
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
