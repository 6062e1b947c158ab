import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OsImage } from '@outpost/shared';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { FakeControlPlane } from './helpers/fake-control-plane.js';
import { startInProcessDevice } from './helpers/in-process-device.js';
import type { InProcessDevice } from './helpers/in-process-device.js';
import { signDigest, signingKey, testImage, trustKey } from './helpers/os-images.js';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const KiB = 1024;
const key = signingKey();

type DeviceOptions = Parameters<typeof startInProcessDevice>[3];

async function device(options: DeviceOptions = {}, trust = true) {
  const plane = await FakeControlPlane.start();
  cleanups.push(() => plane.close());
  const root = await tempDir();
  if (trust) await trustKey(root, key);
  const { logger, messages } = capturedLogger();
  const started: InProcessDevice = await startInProcessDevice(root, plane.url, logger, options);
  cleanups.push(() => started.stop());
  return { plane, root, device: started, messages, logger };
}

/** Every file of the running slot A and the boot state, to prove they are untouched. */
async function runningSlotFiles(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of await readdir(join(root, 'slots'))) {
    if (name.startsWith('A.')) files[name] = (await readFile(join(root, 'slots', name))).toString('base64');
  }
  const state = JSON.parse(await readFile(join(root, 'boot', 'state.json'), 'utf8')) as Record<string, unknown>;
  files['state.json'] = JSON.stringify({ activeSlot: state['activeSlot'], trySlot: state['trySlot'] });
  return files;
}

const convergedOn =
  (version: string) => (status: { deviceInfo?: { osVersion?: string } }, osReady?: { reason: string }) =>
    status.deviceInfo?.osVersion === version && osReady?.reason === 'Converged';

describe('bad artifacts end in OSReady=False/Failed: the running slot untouched, no reboot', () => {
  const badArtifacts: {
    name: string;
    setup: (content: Buffer, image: OsImage) => { content: Buffer; image: OsImage };
    options?: DeviceOptions;
    trust?: boolean;
    message: (image: OsImage) => RegExp;
  }[] = [
    {
      name: 'wrong hash',
      setup: (content, image) => ({ content: Buffer.concat([content.subarray(1), Buffer.from('x')]), image }),
      message: (image) =>
        new RegExp(`^the image of 1\\.1\\.0 has sha256 [0-9a-f]{64}, not the published ${image.sha256}$`),
    },
    {
      name: 'bad signature',
      setup: (content, image) => ({ content, image: { ...image, signature: signDigest(content, signingKey()) } }),
      message: () =>
        /^the signature of 1\.1\.0 does not verify against any of the 1 trusted key\(s\) in .*config\/trust$/,
    },
    {
      name: 'no trusted key on the device',
      setup: (content, image) => ({ content, image }),
      trust: false,
      message: () => /^no trusted key \(\*\.pub\) in .*config\/trust: cannot verify the signature of 1\.1\.0$/,
    },
    {
      name: 'truncated',
      setup: (content, image) => ({ content: content.subarray(0, 50 * KiB), image }),
      message: () => /^the artifact is truncated: the server has 51200 of the image's 102400 bytes$/,
    },
    {
      name: 'larger than the slot',
      setup: (content, image) => ({ content, image }),
      options: { slotSizeBytes: 64 * KiB },
      message: () => /^the image \(102400 bytes\) is larger than slot B \(65536 bytes\)$/,
    },
    {
      name: 'not enough free space',
      setup: (content, image) => ({ content, image }),
      options: { os: { freeSpace: async () => 10 * KiB } },
      message: () =>
        /^not enough free space for the image \(102400 bytes\) in slot B: 102400 more bytes needed, 10240 free$/,
    },
  ];

  it.each(badArtifacts)('$name', async ({ setup, options, trust, message }) => {
    const { plane, root, device: dev } = await device(options, trust ?? true);
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const before = await runningSlotFiles(root);
    const original = testImage('1.1.0', 100 * KiB, key);
    const { content, image } = setup(original.content, original.image);
    plane.publish(image, content);
    plane.setOsVersion('1.1.0', image);

    await plane.waitForOsReady('Failed', message(image));
    expect(plane.osReady?.status).toBe('False');
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');
    expect(await runningSlotFiles(root)).toEqual(before);
    expect(plane.status.osUpdate).toMatchObject({
      runningSlot: 'A',
      activeSlot: 'A',
      slots: { A: { version: '1.0.0' }, B: {} },
    });
    expect(plane.status.osUpdate?.trySlot).toBeUndefined();
    expect(dev.powerEvents).toEqual([]);

    // the same artifact is not tried again (the spec arrives again after every reconnect)
    const requests = plane.artifacts.requests.length;
    plane.setOsVersion('1.1.0', image);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(plane.artifacts.requests.length).toBe(requests);
    expect(plane.osReady?.reason).toBe('Failed');
  });

  it('unsigned (delivered without a signature)', async () => {
    const { plane, root, device: dev } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const before = await runningSlotFiles(root);
    const { content, image } = testImage('1.1.0', 20 * KiB, key);
    plane.publish(image, content);
    // the protocol schema requires a signature, so this reaches the updater directly
    dev.droplet.osUpdater?.setDesired({
      name: 'projects/p/regions/r/devices/d1',
      spec: { osVersion: '1.1.0' },
      metadata: { generation: 5 },
      osImage: { ...image, signature: '' },
    });
    await plane.waitForOsReady('Failed', /^the image of 1\.1\.0 is not signed$/);
    expect(await runningSlotFiles(root)).toEqual(before);
    expect(dev.powerEvents).toEqual([]);
  });
});

describe('the OS updater in one boot', () => {
  it('reports download progress, and writing back the running version aborts the download', async () => {
    const { plane, root, device: dev } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const { content, image } = testImage('1.1.0', 200 * KiB, key);
    plane.publish(image, content);
    plane.artifacts.fault({ stallAfter: 100 * KiB });
    plane.setOsVersion('1.1.0', image);
    await plane.waitForOsReady('Downloading', /^downloading 1\.1\.0: 50%$/);
    // the checkpoint shows its progress first and then saves it: the file catches up a moment later
    const savedOperation = async (): Promise<unknown> =>
      (JSON.parse(await readFile(join(root, 'data', 'os-update.json'), 'utf8')) as { operation?: unknown }).operation;
    await expect.poll(savedOperation).toMatchObject({ phase: 'downloading', bytesWritten: 100 * KiB, slot: 'B' });

    plane.setOsVersion('1.0.0');
    await plane.waitForOsReady('Converged', /^running 1\.0\.0 in slot A$/);
    const after = JSON.parse(await readFile(join(root, 'data', 'os-update.json'), 'utf8')) as Record<string, unknown>;
    expect(after['operation']).toBeUndefined();
    expect(after['slots']).toEqual({ A: { version: '1.0.0', good: true }, B: { good: false } });
    expect(dev.powerEvents).toEqual([]);
  });

  it('resumes a download whose connection dropped, then switches and asks for a reboot', async () => {
    const { plane, device: dev } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const { content, image } = testImage('1.1.0', 300 * KiB, key);
    plane.publish(image, content);
    plane.artifacts.fault({ dropAfter: 120 * KiB });
    plane.setOsVersion('1.1.0', image);
    await plane.waitForStatus('the switch', (status) => status.osUpdate?.trySlot === 'B');
    await expectEventually(() => expect(dev.powerEvents).toEqual(['reboot']));
    expect(plane.artifacts.requests.map((r) => r.status)).toEqual([200, 206]);
    expect(plane.status.osUpdate?.bootEnv).toMatchObject({ active_slot: 'A', try_slot: 'B', try_count: '0' });
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');
  });

  it('a trial boot commits only once connected and the health checks pass', async () => {
    const { plane, root, device: first, logger } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const { content, image } = testImage('1.1.0', 50 * KiB, key);
    plane.publish(image, content);
    plane.setOsVersion('1.1.0', image);
    await expectEventually(() => expect(first.powerEvents).toEqual(['reboot']));

    // the simulated device reboots: the same device root, booted again, with a failing health check
    await first.stop();
    const second = await startInProcessDevice(root, plane.url, logger);
    cleanups.push(() => second.stop());
    second.droplet.reporter.setCondition({
      type: 'Healthy/web',
      status: 'False',
      reason: 'Failing',
      message: 'HTTP 500',
    });
    await plane.waitForOsReady(
      'Verifying',
      /^booted 1\.1\.0 in slot B for a trial; not committed yet: waiting for the health checks to pass: web \(HTTP 500\)$/,
    );
    expect(plane.status.osUpdate).toMatchObject({ runningSlot: 'B', activeSlot: 'A' });
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');

    second.droplet.reporter.setCondition({ type: 'Healthy/web', status: 'Unknown', reason: 'Pending', message: '' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(plane.osReady?.reason).toBe('Verifying');

    second.droplet.reporter.setCondition({
      type: 'Healthy/web',
      status: 'True',
      reason: 'Passing',
      message: 'HTTP 200',
    });
    await plane.waitForStatus('1.1.0 committed', convergedOn('1.1.0'));
    expect(plane.status.osUpdate).toMatchObject({ runningSlot: 'B', activeSlot: 'B' });
  });

  it('refuses an image whose minimumPreviousVersion it does not meet: Failed naming the rule, nothing downloaded', async () => {
    const { plane } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    const { content, image } = testImage('2.0.0', 10 * KiB, key);
    plane.publish(image, content);
    plane.setOsVersion('2.0.0', { ...image, minimumPreviousVersion: '1.2.0' });
    await plane.waitForOsReady(
      'Failed',
      /^refused 2\.0\.0: its minimumPreviousVersion is 1\.2\.0 and this device runs 1\.0\.0; upgrade through 1\.2\.0 first \(nothing was downloaded\)$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(plane.artifacts.requests).toEqual([]);
    expect(plane.status.deviceInfo?.osVersion).toBe('1.0.0');
  });

  it('waits with Pending while the version is not published for the device type', async () => {
    const { plane } = await device();
    await plane.waitForStatus('the factory version', convergedOn('1.0.0'));
    plane.setOsVersion('2.0.0');
    await plane.waitForOsReady('Pending', /^version 2\.0\.0 is not published for device type simulated$/);
    expect(plane.osReady?.status).toBe('False');
    const { content, image } = testImage('2.0.0', 10 * KiB, key);
    plane.publish(image, content);
    plane.setOsVersion('2.0.0', image);
    await plane.waitForStatus('the switch to 2.0.0', (status) => status.osUpdate?.trySlot === 'B');
  });

  it('with the none backend: OSReady=True/Unsupported, managedFeatures.os=false, spec.osVersion ignored', async () => {
    const { plane } = await device({ os: false });
    await plane.waitForOsReady('Unsupported', /OS management is disabled/);
    expect(plane.osReady?.status).toBe('True');
    expect(plane.status.deviceInfo?.managedFeatures).toMatchObject({ os: false, osUpgrade: false });
    const { content, image } = testImage('1.1.0', 10 * KiB, key);
    plane.publish(image, content);
    plane.setOsVersion('1.1.0', image);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(plane.artifacts.requests).toEqual([]);
    expect(plane.osReady?.reason).toBe('Unsupported');
    expect(plane.status.osUpdate).toBeUndefined();
  });
});

async function expectEventually(check: () => void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

// keep the helpers honest: an image's sha256 is its content's
it('test images carry their content hash', () => {
  const { content, image } = testImage('1.0.1', 1000, key);
  expect(image.sha256).toBe(createHash('sha256').update(content).digest('hex'));
  expect(randomBytes(1).length).toBe(1);
});
