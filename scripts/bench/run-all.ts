/**
 * Runs the benchmarks one after another, each in a process of its own (they measure memory and CPU time of
 * their own process): `npm run bench` for all of them, `npm run bench -- limits resource-list` for some.
 * Their JSON lines (one per figure) go to stdout as they come, their progress to stderr. Exits 1 when a
 * benchmark failed (its figures so far are printed all the same). Build first: `npm run build`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseBenchFlags } from './lib/bench-flags.js';
import { REPO_ROOT } from './lib/preflight.js';

/** In order of running time, shortest first. */
const BENCHMARKS = [
  'resource-list',
  'engine-stores',
  'limits',
  'dashboard',
  'agent-idle',
  'slot-write',
  'terminal',
  'scp',
  'fleet-connect',
  'rollout',
] as const;

const { positionals: asked, fail } = parseBenchFlags({
  script: 'run-all.ts',
  summary:
    'Runs the benchmarks one after another, each in a process of its own, with their default flags: all of them, ' +
    `or those named (${BENCHMARKS.join(', ')}). Their JSON lines go to stdout, their progress to stderr.`,
  flags: {},
  positionals: '[benchmark ...]',
});
const unknown = asked.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
if (unknown.length > 0) fail(`unknown benchmark ${unknown.join(', ')}; there are: ${BENCHMARKS.join(', ')}`);
const chosen = asked.length > 0 ? BENCHMARKS.filter((name) => asked.includes(name)) : [...BENCHMARKS];

const failed: string[] = [];
for (const [i, name] of chosen.entries()) {
  process.stderr.write(`\n[${i + 1}/${chosen.length}] ${name}\n`);
  const code = await run(join(REPO_ROOT, 'scripts', 'bench', `${name}.ts`));
  if (code !== 0) failed.push(`${name} (exit ${code})`);
}
process.stderr.write(failed.length === 0 ? '\nevery benchmark ran\n' : `\nfailed: ${failed.join(', ')}\n`);
process.exit(failed.length === 0 ? 0 : 1);

function run(script: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`${script}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
