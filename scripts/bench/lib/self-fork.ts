import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts this same script again as a child process in another role (`process.argv[2] === role` there), e.g. the
 * clients of a benchmark, so they do not share the server's event loop. The child runs with the same loader
 * flags (tsx), talks over IPC with structured-clone messages (typed arrays pass as they are), and its stdout
 * goes to our stderr: stdout stays reserved for figures.
 */
export function forkSelf(scriptUrl: string, role: string): ChildProcess {
  const child = fork(fileURLToPath(scriptUrl), [role], {
    execArgv: process.execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  child.stdout?.pipe(process.stderr);
  return child;
}

interface MessageSource {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * The next IPC message `accept` takes, from a child (rejects when it exits first) or, in a child, from the parent
 * (`process`). Rejects after `timeoutMs`.
 */
export function receive<T>(
  source: MessageSource,
  accept: (message: unknown) => message is T,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = isChildProcess(source) ? source : undefined;
    const cleanup = (): void => {
      clearTimeout(timer);
      source.off('message', onMessage);
      child?.off('exit', onExit);
    };
    const onMessage = (message: unknown): void => {
      if (!accept(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`child process ended (${signal ?? `exit code ${String(code)}`}) while waiting for ${what}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    source.on('message', onMessage);
    child?.on('exit', onExit);
    if (child && child.exitCode !== null) onExit(child.exitCode, child.signalCode);
  });
}

/** Sends one IPC message (to a child, or from a child to its parent) and resolves once it is handed over. */
export function send(target: IpcTarget, message: unknown): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (!target.send) return reject(new Error('no IPC channel'));
    target.send(message, (err) => (err ? reject(err) : resolve()));
  });
}

/** A child process, or `process` in a child. */
export interface IpcTarget {
  send?(message: unknown, callback: (error: Error | null) => void): boolean;
}

/** Waits (at most `timeoutMs`) for a child to exit; kills it (SIGKILL) if it does not. */
export async function awaitExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

function isChildProcess(source: MessageSource): source is MessageSource & ChildProcess {
  return typeof (source as { pid?: unknown }).pid === 'number' && source !== process;
}
