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

export interface ExecaCommandsOptions {
  /** how long one command may run before it is killed (default 60 s) */
  timeoutMs?: number;
  /** extra environment for every command (e.g. a PATH for tests) */
  env?: Record<string, string>;
}

/** The real adapter: runs argv through execa, never through a shell, and never throws for a failed command. */
export function execaCommands(options: ExecaCommandsOptions = {}): SystemCommands {
  return {
    async run(argv) {
      const [file, ...args] = argv;
      if (file === undefined) return { exitCode: 127, stdout: '', stderr: 'empty command' };
      // loaded on first use: execa costs memory an agent that never configures anything does not need
      const { execa } = await import('execa');
      const result = await execa(file, args, {
        reject: false,
        timeout: options.timeoutMs ?? 60_000,
        ...(options.env === undefined ? {} : { env: options.env }),
      });
      const exitCode = typeof result.exitCode === 'number' ? result.exitCode : 127;
      const stderr =
        result.exitCode === undefined ? (result.shortMessage ?? `cannot run ${file}`) : String(result.stderr);
      return { exitCode, stdout: String(result.stdout), stderr };
    },
  };
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
