/**
 * scripts/bench/*.ts parse their flags strictly before any work (lib/bench-flags.ts): `--help` lists every flag and
 * exits 0; an unknown flag is refused on one line of stderr with "try --help", exit 2, with no figure printed and no
 * file left behind. The roles a script forks itself in (here scp's bare server) still take their own arguments.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/processes.js';

/** Each runnable benchmark and the flags its --help must list (README and the scripts' comments name them). */
const SCRIPTS: Record<string, string[]> = {
  'agent-idle': [
    '--seconds',
    '--warmup',
    '--interval',
    '--sample-seconds',
    '--metrics-interval',
    '--checks',
    '--without-grpc',
    '--node-flags',
  ],
  cluster: [
    '--devices',
    '--replicas',
    '--simulators',
    '--reports',
    '--window',
    '--concurrency',
    '--connect-rate',
    '--heartbeat-seconds',
    '--watch-writes',
    '--cpu-prof-dir',
    '--seed-only',
    '--metrics',
    '--metrics-messages',
  ],
  dashboard: [],
  'engine-stores': [],
  'fleet-connect': [
    '--devices',
    '--reports',
    '--window',
    '--paced-rate',
    '--paced-seconds',
    '--concurrency',
    '--connect-rate',
    '--heartbeat-seconds',
    '--tls',
    '--key-pair',
    '--tls-via-nginx',
    '--compare',
    '--profile-dir',
    '--control-plane',
    '--control-plane-node-flags',
    '--postgres',
    '--database',
  ],
  'fleet-simulator': [],
  limits: ['--synchronous', '--postgres', '--database', '--setup-only', '--requests-only'],
  'resource-list': ['--database', '--postgres'],
  rollout: ['--devices', '--canary', '--early', '--download-ms', '--reboot-ms', '--control-plane-max-old-space-mib'],
  'run-all': [],
  scp: [],
  'slot-write': [],
  'status-writes': ['--postgres', '--database', '--devices', '--rounds', '--per-flush'],
  terminal: [],
};

/** the scripts' temporary folder: what they would create shows there (tsx keeps its cache in it too) */
const tmp = mkdtempSync(join(tmpdir(), 'bench-flags-'));
afterAll(() => {
  try {
    expect(readdirSync(tmp).filter((entry) => !entry.startsWith('tsx-'))).toEqual([]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A loaded machine may take many seconds to start tsx; a script that began its run takes minutes. */
const RUN_TIMEOUT_MS = 90_000;

function runScript(script: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('scripts', 'bench', `${script}.ts`), ...args], {
      cwd: REPO,
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('benchmark flags', () => {
  it.concurrent.each(Object.entries(SCRIPTS))(
    '%s: --help lists its flags and exits 0; an unknown flag exits 2 at once',
    async (script, flags) => {
      const help = await runScript(script, ['--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain(`Usage: npx tsx scripts/bench/${script}.ts`);
      for (const flag of [...flags, '--help']) expect(help.stdout).toMatch(new RegExp(`^ +(-h, )?${flag}\\b`, 'm'));

      const refused = await runScript(script, ['--no-such-flag']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(new RegExp(`^${script}: Unknown option '--no-such-flag'[^\n]*; try --help\n$`));
    },
    2 * RUN_TIMEOUT_MS + 10_000,
  );

  it(
    'a bad value is refused before the run, naming the flag',
    async () => {
      const runs = await Promise.all([
        runScript('status-writes', ['--devices', 'many']),
        runScript('limits', ['--setup-only']),
        runScript('resource-list', ['--postgres', '--database', 'postgres://h/db']),
      ]);
      expect(runs.map((run) => run.code)).toEqual([2, 2, 2]);
      expect(runs.map((run) => run.stdout)).toEqual(['', '', '']);
      expect(runs[0]!.stderr).toBe(
        'status-writes: --devices must be a whole number of at least 1, not "many"; try --help\n',
      );
      expect(runs[1]!.stderr).toMatch(
        /^limits: --setup-only .* need the database to keep: --database URL; try --help\n$/,
      );
      expect(runs[2]!.stderr).toBe('resource-list: give --postgres or --database, not both; try --help\n');
    },
    2 * RUN_TIMEOUT_MS,
  );

  it(
    "scp's bare-server role still takes its folder as argv[3] and serves it",
    async () => {
      const dir = mkdtempSync(join(tmp, 'bare-'));
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/scp.ts', '--bare-server', dir], {
        cwd: REPO,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const port = await new Promise<string>((resolve, reject) => {
          createInterface({ input: child.stdout }).once('line', resolve);
          child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
        });
        writeFileSync(join(dir, 'served'), 'bytes of the bare server');
        expect(await (await fetch(`http://127.0.0.1:${port}/served`)).text()).toBe('bytes of the bare server');
        const put = await fetch(`http://127.0.0.1:${port}/put`, { method: 'PUT', body: 'bytes put' });
        expect(put.status).toBe(200);
        expect(readFileSync(join(dir, 'put'), 'utf8')).toBe('bytes put');
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
        rmSync(dir, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS,
  );
});
