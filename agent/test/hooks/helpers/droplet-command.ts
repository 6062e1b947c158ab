import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtDroplet } from '../../helpers/built-droplet.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `droplet <args>` (the built agent/dist/main.js) to its end. */
export function runDroplet(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const key of Object.keys(childEnv)) if (key.startsWith('DROPLET_') && !(key in env)) delete childEnv[key];
  const child = spawn(process.execPath, [builtDroplet(), ...args], { cwd: repoRoot, env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
