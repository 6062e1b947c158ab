import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STEP_BOUNDARIES } from '../../src/os/step-boundaries.js';
import type { StepBoundary } from '../../src/os/step-boundaries.js';
import { expectOnlyCommittedVersionsReported, runningSlotVersion } from './helpers/device-checks.js';
import { provisionSimulatedDevice, startDropletProcess } from './helpers/droplet-process.js';
import type { DropletProcess } from './helpers/droplet-process.js';
import { FakeControlPlane } from './helpers/fake-control-plane.js';
import { signingKey, testImage } from './helpers/os-images.js';

// the tests run concurrently: each keeps its own folder until the end of the file
const dirs: string[] = [];
const started: DropletProcess[] = [];
const planes: FakeControlPlane[] = [];
afterAll(async () => {
  for (const droplet of started) droplet.child.kill('SIGKILL');
  await Promise.all(planes.map((plane) => plane.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const key = signingKey();
const KiB = 1024;

type Fault = 'SIGKILL' | 'power cut';

const cases = STEP_BOUNDARIES.flatMap((boundary) =>
  (['SIGKILL', 'power cut'] as const).map((fault) => ({ boundary, fault })),
);

/** Where each fault ends: only a power cut during the uncommitted trial boot falls back (as GRUB does). */
function expectedOutcome(boundary: StepBoundary, fault: Fault): { version: string; reason: string } {
  if (fault === 'power cut' && boundary === 'trial-boot') return { version: '1.0.0', reason: 'RolledBack' };
  return { version: '1.1.0', reason: 'Converged' };
}

describe('fault injection: the agent killed, or the simulated power cut, at every step boundary of an upgrade', () => {
  it.concurrent.each(cases)(
    '$fault at $boundary: after a restart the device converges and reports its running slot',
    async ({ boundary, fault }) => {
      const plane = await FakeControlPlane.start();
      planes.push(plane);
      const root = await mkdtemp(join(tmpdir(), 'droplet-fault-'));
      dirs.push(root);
      await provisionSimulatedDevice(root, plane.url, key);
      const { content, image } = testImage('1.1.0', 400 * KiB, key);
      plane.publish(image, content);
      plane.artifacts.fault({ dropAfter: 150 * KiB }); // so that a checkpoint falls in the middle
      plane.setOsVersion('1.1.0', image);

      const hook = fault === 'SIGKILL' ? 'OUTPOST_TEST_EXIT_AT' : 'OUTPOST_TEST_POWER_CUT_AT';
      const first = startDropletProcess(root, ['--commit-timeout', '20'], { [hook]: boundary });
      started.push(first);
      const exit = await first.exit;
      expect(exit.signal, first.output()).toBe('SIGKILL');
      expect(first.output()).toContain(`test hook: ${fault === 'SIGKILL' ? 'killed' : 'power cut'} at ${boundary}`);

      const second = startDropletProcess(root, ['--commit-timeout', '20']);
      started.push(second);
      const expected = expectedOutcome(boundary, fault);
      await plane.waitForStatus(
        `${expected.reason} on ${expected.version}`,
        (status, osReady) => status.deviceInfo?.osVersion === expected.version && osReady?.reason === expected.reason,
        40_000,
      );
      expect(await runningSlotVersion(root)).toBe(expected.version);
      if (boundary === 'download-checkpoint') {
        // the restarted agent resumed from the persisted offset instead of starting over
        expect(plane.artifacts.requests[1]).toMatchObject({
          status: 206,
          range: expect.stringMatching(/^bytes=[1-9]\d*-$/),
        });
      }
      expect(plane.status.osUpdate).toMatchObject({ runningSlot: plane.status.osUpdate?.activeSlot });
      expectOnlyCommittedVersionsReported(plane.statuses);
      second.child.kill('SIGTERM');
      expect((await second.exit).code).toBe(0);
    },
    90_000,
  );
});
