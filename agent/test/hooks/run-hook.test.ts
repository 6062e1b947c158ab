import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookRunSchema } from '@outpost/shared';
import { hookRunFile, readHookRun } from '../../src/hooks/hook-files.js';
import { runHook } from '../../src/hooks/run-hook.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { isRunning, readPids, writeHook } from './helpers/hook-scripts.js';

const tempDir = useTempDirs();

describe('runHook (real hook scripts)', () => {
  it('runs an executable hook in {device_root} with its environment, logs its output and records the result', async () => {
    const root = await tempDir();
    await writeHook(
      root,
      'after-droplet',
      'echo "hook=$OUTPOST_HOOK boot=$OUTPOST_BOOT_ID root=$OUTPOST_DEVICE_ROOT cwd=$(pwd)"; echo oops >&2; exit 4',
    );
    const { logger, lines } = capturedLogger();
    const run = await runHook({ deviceRoot: root, name: 'after-droplet', bootId: 'boot-1', timeoutMs: 10_000, logger });

    expect(run).toMatchObject({ hook: 'after-droplet', exitCode: 4, timedOut: false, bootId: 'boot-1' });
    expect(hookRunSchema.parse(run)).toEqual(run);
    expect(await readHookRun(root, 'after-droplet')).toEqual(run);
    const output = lines.filter((l) => l['hook'] === 'after-droplet' && l['stream'] !== undefined);
    expect(output.map((l) => [l['stream'], l.msg])).toEqual([
      ['stdout', `hook=after-droplet boot=boot-1 root=${root} cwd=${root}`],
      ['stderr', 'oops'],
    ]);
    expect(lines.some((l) => l.msg === 'the after-droplet hook failed' && l['exitCode'] === 4)).toBe(true);
  });

  it('skips a hook that is not executable, silently: no run, no record, nothing above debug in the log', async () => {
    const root = await tempDir();
    const marker = join(root, 'ran');
    await writeHook(root, 'on-boot', `touch ${marker}`, 0o644);
    const { logger, lines } = capturedLogger();
    expect(
      await runHook({ deviceRoot: root, name: 'on-boot', bootId: 'b', timeoutMs: 10_000, logger }),
    ).toBeUndefined();
    await expect(stat(marker)).rejects.toThrow(/ENOENT/);
    await expect(stat(hookRunFile(root, 'on-boot'))).rejects.toThrow(/ENOENT/);
    expect(lines.filter((l) => l.level > 20)).toEqual([]);
  });

  it('skips a missing hook and a directory in its place the same way', async () => {
    const root = await tempDir();
    const { logger, lines } = capturedLogger();
    expect(
      await runHook({ deviceRoot: root, name: 'on-shutdown', bootId: 'b', timeoutMs: 1_000, logger }),
    ).toBeUndefined();
    await writeHook(root, 'on-boot', '');
    await mkdir(join(root, 'config', 'hooks', 'after-droplet'));
    expect(
      await runHook({ deviceRoot: root, name: 'after-droplet', bootId: 'b', timeoutMs: 1_000, logger }),
    ).toBeUndefined();
    expect(lines.filter((l) => l.level > 20)).toEqual([]);
  });

  it('kills a hook past its timeout together with its children, and records timedOut', async () => {
    const root = await tempDir();
    const pids = join(root, 'pids');
    await writeHook(
      root,
      'on-boot',
      `sleep 600 & echo $! > ${pids}; (sleep 600; echo never) & echo $! >> ${pids}; sleep 600`,
    );
    const { logger, lines } = capturedLogger();
    const run = await runHook({
      deviceRoot: root,
      name: 'on-boot',
      bootId: 'b',
      // from the spawn: time for the hook to start both children and write their pids first, on a loaded machine
      timeoutMs: 3_000,
      killGraceMs: 500,
      logger,
    });
    expect(run).toMatchObject({ hook: 'on-boot', timedOut: true, signal: 'SIGTERM' });
    expect(run?.exitCode).toBeUndefined();
    expect(run!.durationMs).toBeGreaterThanOrEqual(2_950);
    const children = await readPids(pids);
    expect(children).toHaveLength(2);
    await eventually(async () => {
      for (const pid of children) expect(await isRunning(pid)).toBe(false);
    });
    expect(lines.some((l) => /ran past its timeout/.test(l.msg ?? ''))).toBe(true);
    expect(JSON.parse(await readFile(hookRunFile(root, 'on-boot'), 'utf8'))).toMatchObject({ timedOut: true });
  });

  it('records a hook that cannot start (bad interpreter) with its error', async () => {
    const root = await tempDir();
    const file = await writeHook(root, 'on-shutdown', '');
    await writeFile(file, '#!/nonexistent/interpreter\n');
    const { logger } = capturedLogger();
    const run = await runHook({ deviceRoot: root, name: 'on-shutdown', bootId: 'b', timeoutMs: 5_000, logger });
    expect(run?.error).toMatch(/ENOENT/);
    expect(run?.timedOut).toBe(false);
  });
});
