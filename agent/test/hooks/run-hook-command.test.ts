import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readHookRun } from '../../src/hooks/hook-files.js';
import { readBootId } from '../../src/runtime-facts.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { runDroplet } from './helpers/droplet-command.js';
import { markerLine, readMarkers, writeHook } from './helpers/hook-scripts.js';

const tempDir = useTempDirs();

describe('droplet run-hook (what the systemd units run; real child processes)', () => {
  it('runs the hook under the kernel boot id, logs its output as JSON lines, records it, and exits 0 even when the hook fails', async () => {
    const root = await tempDir();
    await writeHook(root, 'on-boot', `${markerLine}; echo "hello from on-boot"; exit 7`);
    const result = await runDroplet(['run-hook', 'on-boot', '--device-root', root]);
    expect(result.code).toBe(0);
    const bootId = await readBootId();
    expect(await readHookRun(root, 'on-boot')).toMatchObject({ hook: 'on-boot', exitCode: 7, bootId, timedOut: false });
    expect((await readMarkers(root)).map((m) => [m.hook, m.bootId])).toEqual([['on-boot', bootId]]);
    const logged = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; hook?: string });
    expect(logged).toContainEqual(expect.objectContaining({ hook: 'on-boot', msg: 'hello from on-boot' }));
  });

  it('--timeout (or the DROPLET_*_HOOK_TIMEOUT of the agent) kills the hook; --once-per-boot does not run a hook twice in one boot', async () => {
    const root = await tempDir();
    await writeHook(root, 'on-shutdown', `${markerLine}; sleep 600`);
    const first = await runDroplet(['run-hook', 'on-shutdown', '--device-root', root, '--once-per-boot'], {
      DROPLET_SHUTDOWN_HOOK_TIMEOUT: '0.5',
    });
    expect(first.code).toBe(0);
    expect(await readHookRun(root, 'on-shutdown')).toMatchObject({ timedOut: true });
    const second = await runDroplet(['run-hook', 'on-shutdown', '--device-root', root, '--once-per-boot']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already ran in this boot');
    expect(await readMarkers(root)).toHaveLength(1);

    await writeHook(root, 'on-boot', 'sleep 600');
    const flag = await runDroplet(['run-hook', 'on-boot', '--device-root', root, '--timeout', '0.5']);
    expect(flag.code).toBe(0);
    expect(await readHookRun(root, 'on-boot')).toMatchObject({ timedOut: true, signal: 'SIGTERM' });
  });

  it('skips a missing or non-executable hook without error, and refuses an unknown hook name with exit 2', async () => {
    const root = await tempDir();
    await writeHook(root, 'after-droplet', markerLine, 0o600);
    const skipped = await runDroplet(['run-hook', 'after-droplet', '--device-root', root]);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toBe('');
    expect(await readMarkers(root)).toEqual([]);
    expect(await readHookRun(root, 'after-droplet')).toBeUndefined();

    const unknown = await runDroplet(['run-hook', 'on-reboot', '--device-root', root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown hook "on-reboot"');
    await expect(readFile(`${root}/data/hooks/on-reboot.json`)).rejects.toThrow(/ENOENT/);
  });
});
