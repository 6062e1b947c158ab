import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** a non-zero exit is returned instead of thrown */
  allowFailure?: boolean;
}

/** Runs a program to completion (no shell); a non-zero exit throws with the command line and its stderr. */
export async function run(program: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  const child = spawn(program, args, {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  if (code !== 0 && options.allowFailure !== true) {
    throw new Error(`${program} ${args.join(' ')} exited with ${code}:\n${stderr.trim() || stdout.trim()}`);
  }
  return { code, stdout, stderr };
}
