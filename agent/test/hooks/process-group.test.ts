import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcessGroup } from '../../src/hooks/process-group.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { isRunning, readPids } from './helpers/hook-scripts.js';

const tempDir = useTempDirs();

describe('runInProcessGroup (real processes)', () => {
  it('runs a program to its end and hands over its output line by line', async () => {
    const lines: string[] = [];
    const outcome = await runInProcessGroup({
      file: 'sh',
      args: ['-c', 'echo one; echo two >&2; printf three; exit 3'],
      timeoutMs: 10_000,
      onOutput: (stream, line) => lines.push(`${stream}:${line}`),
    });
    expect(outcome).toMatchObject({ exitCode: 3, timedOut: false });
    expect(outcome.signal).toBeUndefined();
    expect(lines.sort()).toEqual(['stderr:two', 'stdout:one', 'stdout:three']);
  });

  it('past its timeout kills the whole process group: SIGTERM, then SIGKILL for what ignores it', async () => {
    const dir = await tempDir();
    const pids = join(dir, 'pids');
    // the shell and both children ignore SIGTERM (an ignored signal stays ignored across fork and exec)
    const script = `trap '' TERM; sleep 600 & echo $! > ${pids}; sleep 600 & echo $! >> ${pids}; echo $$ >> ${pids}; wait`;
    const started = Date.now();
    const outcome = await runInProcessGroup({
      file: 'sh',
      args: ['-c', script],
      // the timeout runs from the spawn: time for the shell to set its trap and start both children first (a
      // loaded machine can take longer than 300 ms, and a shell killed before its trap ends with SIGTERM)
      timeoutMs: 3_000,
      killGraceMs: 300,
    });
    expect(outcome).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(30_000);
    const all = await readPids(pids);
    expect(all).toHaveLength(3);
    await eventually(async () => {
      for (const pid of all) expect(await isRunning(pid)).toBe(false);
    });
  });

  it('a group that obeys SIGTERM ends without waiting for the grace period', async () => {
    const outcome = await runInProcessGroup({
      file: 'sh',
      args: ['-c', 'sleep 600'],
      timeoutMs: 200,
      killGraceMs: 60_000,
    });
    expect(outcome).toMatchObject({ timedOut: true, signal: 'SIGTERM' });
    expect(outcome.durationMs).toBeLessThan(30_000);
  });

  it('leaves a daemon the program started alone when the program itself ends in time', async () => {
    const dir = await tempDir();
    const pids = join(dir, 'pids');
    const outcome = await runInProcessGroup({
      file: 'sh',
      args: ['-c', `sleep 600 > /dev/null 2>&1 & echo $! > ${pids}`],
      timeoutMs: 10_000,
      onOutput: () => {},
    });
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    const [daemon] = await readPids(pids);
    expect(await isRunning(daemon!)).toBe(true);
    process.kill(daemon!, 'SIGKILL');
  });

  it('reports a program that cannot start, and an aborted run', async () => {
    const missing = await runInProcessGroup({ file: '/nonexistent/program', timeoutMs: 1_000 });
    expect(missing.error).toMatch(/ENOENT/);
    expect(missing.exitCode).toBeUndefined();

    const controller = new AbortController();
    const running = runInProcessGroup({
      file: 'sleep',
      args: ['600'],
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ timedOut: false, signal: 'SIGTERM' });
  });
});
