import { execFile } from 'node:child_process';
import type { ExecFileException } from 'node:child_process';

/** What one system command answered. A command that could not be started answers exit code 127. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The adapter through which device configuration runs system commands (netplan, networkctl, systemctl, sshd),
 * so the configuration core can be tested with a recording fake and simulated devices run none.
 */
export interface SystemCommands {
  run(argv: string[]): Promise<CommandResult>;
}

export interface SystemCommandsOptions {
  /** how long one command may run before it is killed (default 60 s) */
  timeoutMs?: number;
  /** extra environment for every command (e.g. a PATH for tests) */
  env?: Record<string, string>;
}

/** Output a command may write before it is killed (per stream). */
const MAX_OUTPUT_BYTES = 64 * 2 ** 20;

/**
 * The real adapter: runs argv through node's execFile, never through a shell, and never throws for a failed
 * command. Not execa: every agent runs one at start (the SSH configuration's `systemctl try-reload-or-restart`),
 * and execa would then stay in its memory for good (~1.2 MiB resident, see scripts/bench/agent-idle.ts). Like
 * execa, the output loses its final newline, and the extra environment adds to the agent's.
 */
export function execFileCommands(options: SystemCommandsOptions = {}): SystemCommands {
  return {
    run(argv) {
      const [file, ...args] = argv;
      if (file === undefined) return Promise.resolve({ exitCode: 127, stdout: '', stderr: 'empty command' });
      const timeoutMs = options.timeoutMs ?? 60_000;
      return new Promise((resolve) => {
        execFile(
          file,
          args,
          {
            encoding: 'utf8',
            timeout: timeoutMs,
            maxBuffer: MAX_OUTPUT_BYTES,
            ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
          },
          (err, stdout, stderr) => {
            const out = withoutFinalNewline(stdout);
            if (err === null) return resolve({ exitCode: 0, stdout: out, stderr: withoutFinalNewline(stderr) });
            if (typeof err.code === 'number' && !err.killed) {
              return resolve({ exitCode: err.code, stdout: out, stderr: withoutFinalNewline(stderr) });
            }
            resolve({ exitCode: 127, stdout: out, stderr: failure(file, err, timeoutMs) });
          },
        );
      });
    },
  };
}

/** Why a command gave no exit code: not started (ENOENT, EACCES), too much output, timed out, or a signal. */
function failure(file: string, err: ExecFileException, timeoutMs: number): string {
  if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
    return `${file} wrote over ${MAX_OUTPUT_BYTES} bytes and was killed`;
  if (typeof err.code === 'string') return `cannot run ${file}: ${err.code}`;
  if (err.killed === true) return `${file} timed out after ${timeoutMs} ms and was killed`;
  return `${file} was ended by ${err.signal ?? 'a signal'}`;
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** A command the recording fake answers: every call is recorded; `answer` decides the result (default success). */
export interface RecordingCommands extends SystemCommands {
  readonly calls: string[][];
}

export function recordingCommands(
  answer: (argv: string[]) => CommandResult | Promise<CommandResult> = () => ({ exitCode: 0, stdout: '', stderr: '' }),
): RecordingCommands {
  const calls: string[][] = [];
  return {
    calls,
    async run(argv) {
      calls.push([...argv]);
      return answer(argv);
    },
  };
}
