import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './preflight.js';

const CLI_MAIN = join(REPO_ROOT, 'control-plane', 'dist', 'cli', 'main.js');
const USAGE_AT_EXIT = fileURLToPath(new URL('./usage-at-exit.mjs', import.meta.url));

export interface CliRun {
  /** exit code (null when a signal ended it) */
  code: number | null;
  /** the whole of its stderr */
  stderr: string;
  /** user + system CPU seconds of the CLI process, measured by itself as it exited */
  cpuSeconds: number;
  /** its peak resident memory (getrusage ru_maxrss), in bytes */
  maxRssBytes: number;
}

/**
 * Runs the built `outpost` CLI (control-plane/dist/cli/main.js) as a child process with `args`, calling `onLine`
 * with each stdout line as it comes, and answers how it ended and what it used. `usageFile` is a scratch file
 * path (the child writes its usage there at exit).
 */
export async function runMeasuredCli(
  args: readonly string[],
  options: { server: string; apiKey: string; usageFile: string; onLine?: (line: string) => void },
): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', USAGE_AT_EXIT, CLI_MAIN, ...args], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      OUTPOST_SERVER: options.server,
      OUTPOST_API_KEY: options.apiKey,
      OUTPOST_BENCH_USAGE_FILE: options.usageFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => options.onLine?.(line));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  process.off('exit', kill);
  const usage = readUsage(options.usageFile);
  return { code, stderr, ...usage };
}

function readUsage(file: string): { cpuSeconds: number; maxRssBytes: number } {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { cpuSeconds?: unknown; maxRssBytes?: unknown };
    if (typeof parsed.cpuSeconds === 'number' && typeof parsed.maxRssBytes === 'number') {
      return { cpuSeconds: parsed.cpuSeconds, maxRssBytes: parsed.maxRssBytes };
    }
  } catch {
    // a child killed by a signal writes nothing
  }
  return { cpuSeconds: Number.NaN, maxRssBytes: Number.NaN };
}
