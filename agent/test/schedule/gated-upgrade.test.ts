import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { UpdateLocks, locksDir } from '../../src/locks/update-locks.js';
import { FakeControlPlane } from '../os/helpers/fake-control-plane.js';
import { startInProcessDevice } from '../os/helpers/in-process-device.js';
import { signingKey, testImage, trustKey } from '../os/helpers/os-images.js';

// The real updater on the simulated device (file boot backend) with real lock files: an upgrade downloads, then
// waits for a maintenance window and for update locks before it switches slots and reboots.
const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const key = signingKey();

async function device() {
  const plane = await FakeControlPlane.start();
  cleanups.push(() => plane.close());
  const root = await tempDir();
  await trustKey(root, key);
  const { logger } = capturedLogger();
  const started = await startInProcessDevice(root, plane.url, logger, {
    os: {
      tuning: {
        progressIntervalMs: 10,
        idleRecheckMs: 100,
        download: { checkpointIntervalMs: 20, backoff: { baseMs: 10, capMs: 50 } },
      },
    },
  });
  cleanups.push(() => started.stop());
  await plane.waitForOsReady('Converged');
  return { plane, root, device: started };
}

/** A daily one-hour window twelve hours from now (UTC): closed now. */
const closedWindow = () => ({ schedule: `0 ${(new Date().getUTCHours() + 12) % 24} * * *`, duration: '1h' });
/** A window opening every minute for an hour: open now. */
const openWindow = { schedule: '* * * * *', duration: '1h', timeZone: 'Europe/Berlin' };

const operationPhase = async (root: string): Promise<string | undefined> =>
  (JSON.parse(await readFile(join(root, 'data', 'os-update.json'), 'utf8')) as { operation?: { phase: string } })
    .operation?.phase;

const eventually = async (check: () => void | Promise<void>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
};

describe('an upgrade held back by maintenance windows and update locks', () => {
  it('downloads outside the window, says WaitingForWindow with the next start, and completes once a window opens', async () => {
    const { plane, root, device: dev } = await device();
    const { content, image } = testImage('1.1.0', 64 * 1024, key);
    plane.publish(image, content);
    const window = closedWindow();
    plane.setOsVersion('1.1.0', image, { updatePolicy: { maintenanceWindows: [window] } });
    const status = await plane.waitForOsReady(
      'WaitingForWindow',
      /^1\.1\.0 is ready in slot B; waiting for the maintenance window at \d{4}-.*Z$/,
    );
    expect(status.maintenance).toMatchObject({ windows: 1, windowOpen: false, heldLocks: [] });
    expect(Date.parse(status.maintenance?.nextWindowStart ?? '')).toBeGreaterThan(Date.now() + 10 * 3_600_000);
    expect(await operationPhase(root)).toBe('verified');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dev.powerEvents).toEqual([]);
    expect(plane.status.osUpdate?.trySlot).toBeUndefined();

    plane.setOsVersion('1.1.0', image, { updatePolicy: { maintenanceWindows: [window, openWindow] } });
    await eventually(() => expect(dev.powerEvents).toEqual(['reboot']));
    // the status the updater resends just before it reboots reaches the plane over the link, after the power event
    await plane.waitForStatus('the try slot B', (status) => status.osUpdate?.trySlot === 'B');
  });

  it('a held lock file defers the switch until it is released, then the upgrade goes on', async () => {
    const { plane, root, device: dev } = await device();
    const locks = new UpdateLocks(locksDir(root));
    await locks.acquire('db', 10 * 60_000);
    const { content, image } = testImage('1.1.0', 64 * 1024, key);
    plane.publish(image, content);
    plane.setOsVersion('1.1.0', image);
    const status = await plane.waitForOsReady('WaitingForLocks', /waiting while update lock db \(until .*\) held$/);
    expect(status.maintenance).toMatchObject({ windows: 0, windowOpen: true, heldLocks: [{ name: 'db' }] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dev.powerEvents).toEqual([]);

    await locks.release('db');
    await eventually(() => expect(dev.powerEvents).toEqual(['reboot']));
    await plane.waitForStatus('no held lock', (status) => status.maintenance?.heldLocks.length === 0);
  });

  it('a lock that lapses holds no longer', async () => {
    const { plane, root, device: dev } = await device();
    await new UpdateLocks(locksDir(root)).acquire('crashed-app', 1_500);
    const { content, image } = testImage('1.1.0', 64 * 1024, key);
    plane.publish(image, content);
    plane.setOsVersion('1.1.0', image);
    await plane.waitForOsReady('WaitingForLocks');
    await eventually(() => expect(dev.powerEvents).toEqual(['reboot']));
  });
});
