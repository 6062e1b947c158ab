import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, onTestFailed } from 'vitest';
import { startControlPlane } from './control-plane.js';
import type { ControlPlane } from './control-plane.js';
import { readDiskLayout } from './disk-layout.js';
import type { DiskLayout } from './disk-layout.js';
import { E2eDevice } from './e2e-device.js';
import type { E2eDeviceOptions } from './e2e-device.js';
import { loadImageSet } from './image-set.js';
import type { ImageSet } from './image-set.js';
import { ENCRYPTED_IMAGES_OUT, IMAGES_OUT } from './paths.js';
import { Timings } from './timings.js';

export interface ScenarioOptions {
  /** OS versions to publish for the image's device type before the scenarios run (bundles of images/out) */
  publish?: readonly string[];
  /** QEMU start to droplet.service started; default 180 s (the machine is shared: boots take 15–60 s) */
  bootTimeoutMs?: number;
  /** default timeout of every wait on the device; default 300 s */
  waitTimeoutMs?: number;
  /** `encrypted`: the image set of images/build-all.sh --encrypted (a TPM per machine); default `plain` */
  imageSet?: 'plain' | 'encrypted';
}

export interface Scenario {
  readonly controlPlane: ControlPlane;
  readonly images: ImageSet;
  readonly timings: Timings;
  /** where serial logs (and, with OUTPOST_E2E_KEEP=1, overlays) are kept */
  readonly workDir: string;
  /** A provisioned device with its machine off (`powerOn()` it); disposed after the test. */
  device(id: string, options?: E2eDeviceOptions): Promise<E2eDevice>;
}

export const E2E_PARENT = 'projects/e2e/regions/lab';

/**
 * Sets up a test file's scenarios: a real control plane on 127.0.0.1 (in this process), the built
 * images and their disk layout, the published OS versions; every device is disposed after its test.
 * Serial logs are kept when a test fails (their folder is in the failure message).
 */
export function useScenario(options: ScenarioOptions = {}): Scenario {
  let controlPlane: ControlPlane | undefined;
  let images: ImageSet | undefined;
  let layout: DiskLayout | undefined;
  let keepWorkDir = process.env['OUTPOST_E2E_KEEP'] === '1';
  const workDir = mkdtempSync(join(tmpdir(), 'outpost-e2e-'));
  const timings = new Timings(join(workDir, 'timings.jsonl'));
  const devices: E2eDevice[] = [];
  const required = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the scenario is not set up (useScenario() outside a describe?)');
    return value;
  };

  beforeAll(async () => {
    images = loadImageSet(options.imageSet === 'encrypted' ? ENCRYPTED_IMAGES_OUT : IMAGES_OUT);
    layout = await readDiskLayout(images.disk);
    controlPlane = await startControlPlane();
    for (const version of options.publish ?? []) {
      const started = Date.now();
      await controlPlane.publish(images.bundle(version), images.deviceType, images.signingKey);
      timings.since(`outpost os publish ${version}`, started);
    }
  });
  afterEach(async () => {
    await Promise.all(devices.splice(0).map((d) => d.dispose()));
  });
  afterAll(async () => {
    await controlPlane?.dispose();
    if (keepWorkDir) process.stdout.write(`[e2e] logs kept in ${workDir}\n`);
    else rmSync(workDir, { recursive: true, force: true });
  });

  return {
    get controlPlane() {
      return required(controlPlane);
    },
    get images() {
      return required(images);
    },
    timings,
    workDir,
    async device(id, deviceOptions) {
      onTestFailed(() => {
        keepWorkDir = true;
      });
      const device = await E2eDevice.create(
        id,
        {
          controlPlane: required(controlPlane),
          images: required(images),
          layout: required(layout),
          timings,
          workDir,
          parent: E2E_PARENT,
          bootTimeoutMs: options.bootTimeoutMs ?? 180_000,
          waitTimeoutMs: options.waitTimeoutMs ?? 300_000,
        },
        deviceOptions,
      );
      devices.push(device);
      return device;
    },
  };
}
