/**
 * scripts/bench/lib/measured-cli.ts: the built CLI as a real child process measures its own CPU and peak memory
 * as it exits (the usage-at-exit preload), and its exit code and stderr come back as they were.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMeasuredCli } from '../../scripts/bench/lib/measured-cli.js';
import { REPO } from './helpers/processes.js';

const built = existsSync(join(REPO, 'control-plane', 'dist', 'cli', 'main.js'));
const dir = mkdtempSync(join(tmpdir(), 'measured-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!built)('runMeasuredCli', () => {
  it('answers the exit code, the stdout lines and the usage the CLI measured of itself', async () => {
    const lines: string[] = [];
    const run = await runMeasuredCli(['devices', 'rollout', '--help'], {
      server: 'http://127.0.0.1:9',
      apiKey: 'unused',
      usageFile: join(dir, 'help.json'),
      onLine: (line) => lines.push(line),
    });
    expect(run.code).toBe(0);
    expect(lines.some((line) => line.includes('--max-failures'))).toBe(true);
    expect(run.cpuSeconds).toBeGreaterThan(0);
    // a node process holds tens of MiB at least
    expect(run.maxRssBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(run.maxRssBytes).toBeLessThan(4 * 1024 * 1024 * 1024);
  });

  it('passes a failing exit code and its stderr through', async () => {
    const run = await runMeasuredCli(['devices', 'rollout', '--parent', 'projects/p/regions/r'], {
      server: 'http://127.0.0.1:9',
      apiKey: 'unused',
      usageFile: join(dir, 'missing-version.json'),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--version');
    expect(run.cpuSeconds).toBeGreaterThan(0);
  });
});
