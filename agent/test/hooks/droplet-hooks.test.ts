import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookRun } from '@outpost/shared';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { provisionSimulatedDevice, startDropletProcess } from '../os/helpers/droplet-process.js';
import type { DropletProcess } from '../os/helpers/droplet-process.js';
import { FakeControlPlane } from '../os/helpers/fake-control-plane.js';
import { signingKey, testImage } from '../os/helpers/os-images.js';
import { isRunning, markerLine, readMarkers, readPids, writeHook } from './helpers/hook-scripts.js';

const tempDir = useTempDirs();
const running: DropletProcess[] = [];
const planes: FakeControlPlane[] = [];
afterEach(async () => {
  for (const droplet of running.splice(0)) droplet.child.kill('SIGKILL');
  await Promise.all(planes.splice(0).map((plane) => plane.close()));
});

const key = signingKey();

async function simulatedDevice() {
  const plane = await FakeControlPlane.start();
  planes.push(plane);
  const root = await tempDir();
  await provisionSimulatedDevice(root, plane.url, key);
  return { plane, root };
}

function start(root: string, args: string[] = []): DropletProcess {
  const droplet = startDropletProcess(root, args);
  running.push(droplet);
  return droplet;
}

const hookRuns = (plane: FakeControlPlane): Partial<Record<string, HookRun>> =>
  Object.fromEntries((plane.status.hooks ?? []).map((run) => [run.hook, run]));

/** JSON log lines of the droplet at warn level or above that mention a hook. */
const hookWarnings = (output: string): unknown[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; hook?: string })
    .filter((line) => line.level >= 40 && line.hook !== undefined);

describe('droplet hooks on a simulated device (real droplet process, file backend)', () => {
  it('runs on-boot before the agent connects and after-droplet once the agent is up, once per boot, and reports both', async () => {
    const { plane, root } = await simulatedDevice();
    await writeHook(
      root,
      'on-boot',
      `${markerLine}; sleep 1; echo "on-boot-done $OUTPOST_BOOT_ID $(date +%s%3N)" >> "$OUTPOST_DEVICE_ROOT/data/markers"`,
    );
    await writeHook(root, 'after-droplet', markerLine);
    const first = start(root);

    // while on-boot runs, the agent has not even said hello: its hello arrives after the hook's last line
    const onBootDone = await eventually(async () => {
      const done = (await readMarkers(root)).find((m) => m.hook === 'on-boot-done');
      expect(done).toBeDefined();
      return done!;
    }, 20_000);
    await eventually(() => expect(plane.hellos).toHaveLength(1), 20_000);
    expect(plane.hellos[0]!.receivedAtMs).toBeGreaterThanOrEqual(onBootDone.timeMs);
    await plane.waitForStatus('both hook runs', (status) => (status.hooks ?? []).length === 2);
    const bootId = plane.hellos[0]!.bootId;
    expect(hookRuns(plane)).toMatchObject({
      'on-boot': { exitCode: 0, timedOut: false, bootId },
      'after-droplet': { exitCode: 0, timedOut: false, bootId },
    });
    expect(hookRuns(plane)['on-boot']!.durationMs).toBeGreaterThanOrEqual(1000);
    const markers = await readMarkers(root);
    expect(markers.map((m) => `${m.hook} ${m.bootId}`)).toEqual([
      `on-boot ${bootId}`,
      `on-boot-done ${bootId}`,
      `after-droplet ${bootId}`,
    ]);
    const log = first.output();
    expect(log.indexOf('the on-boot hook finished')).toBeLessThan(log.indexOf('connected to the control plane'));
    expect(log.indexOf('the on-boot hook finished')).toBeLessThan(log.indexOf('running the after-droplet hook'));

    // the agent restarts within the same boot: neither hook runs again, the recorded runs are reported again
    first.child.kill('SIGTERM');
    await first.exit;
    const statusesBefore = plane.statuses.length;
    const second = start(root);
    await eventually(() => expect(plane.hellos).toHaveLength(2), 20_000);
    expect(plane.hellos[1]!.bootId).toBe(bootId);
    await eventually(() => {
      const later = plane.statuses.slice(statusesBefore);
      expect(later.some((s) => (s.hooks ?? []).length === 2)).toBe(true);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await readMarkers(root)).toHaveLength(3);
    expect(second.output()).not.toContain('running the');
  });

  it('runs after-droplet once the agent is up even when the control plane cannot be reached', async () => {
    const plane = await FakeControlPlane.start();
    const unreachable = plane.url;
    await plane.close(); // nothing listens there any more
    const root = await tempDir();
    await provisionSimulatedDevice(root, unreachable, key);
    await writeHook(root, 'after-droplet', markerLine);
    const droplet = start(root);

    const markers = await eventually(async () => {
      const found = await readMarkers(root);
      expect(found.map((m) => m.hook)).toEqual(['after-droplet']);
      return found;
    }, 20_000);
    const recorded = await eventually(async () => {
      const run = JSON.parse(await readFile(join(root, 'data', 'hooks', 'after-droplet.json'), 'utf8')) as HookRun;
      expect(run).toMatchObject({ exitCode: 0, bootId: markers[0]!.bootId });
      return run;
    });
    expect(droplet.output()).not.toContain('connected to the control plane');

    // started again in the same boot, still offline: it does not run again
    droplet.child.kill('SIGTERM');
    await droplet.exit;
    const again = start(root);
    await eventually(() => expect(again.output()).toContain('droplet started'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await readMarkers(root)).toHaveLength(1);
    expect(again.output()).not.toContain('running the after-droplet hook');
    expect(recorded.bootId).toBe(markers[0]!.bootId);
  });

  it('hooks in {device_root}/config/hooks survive an OS upgrade; on-shutdown runs before the reboot the agent starts', async () => {
    const { plane, root } = await simulatedDevice();
    const files = {
      'on-boot': await writeHook(root, 'on-boot', markerLine),
      'after-droplet': await writeHook(root, 'after-droplet', markerLine),
      'on-shutdown': await writeHook(root, 'on-shutdown', markerLine),
    };
    const contents = await Promise.all(Object.values(files).map((f) => readFile(f, 'utf8')));
    start(root);
    await plane.waitForStatus('after-droplet ran', (status) => (status.hooks ?? []).length === 2);

    const v110 = testImage('1.1.0', 64 * 1024, key);
    plane.publish(v110.image, v110.content);
    plane.setOsVersion('1.1.0', v110.image);
    await plane.waitForStatus(
      '1.1.0 committed and after-droplet run in the new boot',
      (status) =>
        status.deviceInfo?.osVersion === '1.1.0' &&
        (status.hooks ?? []).some((h) => h.hook === 'after-droplet' && h.bootId === plane.hellos.at(-1)?.bootId),
      30_000,
    );
    const [boot1, boot2] = [...new Set(plane.hellos.map((h) => h.bootId))];
    expect(boot2).toBeDefined();
    const markers = await readMarkers(root);
    expect(markers.map((m) => `${m.hook} ${m.bootId}`)).toEqual([
      `on-boot ${boot1}`,
      `after-droplet ${boot1}`,
      `on-shutdown ${boot1}`,
      `on-boot ${boot2}`,
      `after-droplet ${boot2}`,
    ]);
    const times = markers.map((m) => m.timeMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(await Promise.all(Object.values(files).map((f) => readFile(f, 'utf8')))).toEqual(contents);
    expect(hookRuns(plane)).toMatchObject({
      'on-boot': { bootId: boot2, exitCode: 0 },
      'after-droplet': { bootId: boot2, exitCode: 0 },
      'on-shutdown': { bootId: boot1, exitCode: 0 },
    });
  });

  it('kills an on-boot hook past --hook-timeout with its children and starts anyway; skips a non-executable hook silently', async () => {
    const { plane, root } = await simulatedDevice();
    const pids = join(root, 'pids');
    await writeHook(root, 'on-boot', `sleep 600 & echo $! > ${pids}; sleep 600`);
    await writeHook(root, 'after-droplet', markerLine, 0o644);
    // 3 s from the hook's spawn: time for it to start its child and write the pid the test reads, on a loaded machine
    const droplet = start(root, ['--hook-timeout', '3']);

    await plane.waitForStatus('the on-boot run', (status) => (status.hooks ?? []).length > 0, 20_000);
    expect(hookRuns(plane)['on-boot']).toMatchObject({ timedOut: true, signal: 'SIGTERM' });
    const [child] = await readPids(pids);
    await eventually(async () => expect(await isRunning(child!)).toBe(false));
    expect(plane.hellos).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await readMarkers(root)).toEqual([]);
    expect(hookRuns(plane)['after-droplet']).toBeUndefined();
    expect(hookWarnings(droplet.output()).map((l) => (l as { hook: string }).hook)).toEqual(['on-boot']);
  });
});
