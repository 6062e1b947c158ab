import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDiskLayout } from './harness/disk-layout.js';
import { loadImageSet } from './harness/image-set.js';
import { Vm } from './harness/qemu-vm.js';

const dirs: string[] = [];
const vms: Vm[] = [];
afterEach(async () => {
  await Promise.all(vms.splice(0).map((vm) => vm.dispose()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the harness fails loudly', () => {
  it('a boot that does not start droplet in time fails the VM with the serial console and stops QEMU', async () => {
    const images = loadImageSet();
    const workDir = await mkdtemp(join(tmpdir(), 'outpost-e2e-harness-'));
    dirs.push(workDir);
    const vm = await Vm.create({
      name: 'too-slow',
      workDir,
      baseDisk: images.disk,
      layout: await readDiskLayout(images.disk),
      controlPlanePort: 9, // nothing listens: the guest never gets a control plane
      bootTimeoutMs: 8_000, // GRUB at best: droplet.service starts after 13 s even on an idle machine
      maxBoots: 1,
    });
    vms.push(vm);
    const failed = new Promise<Error>((resolve) => vm.onFailure(resolve));
    vm.powerOn();
    const err = await failed;
    expect(err.message).toMatch(
      /too-slow: boot timed out: droplet\.service did not start within 8 s \(boot 1, serial log .*too-slow-boot-01\.log\)/,
    );
    expect(err.message).toContain('--- last 80 lines of the serial console ---');
    const boot = await vm.waitForExit(30_000);
    expect(boot.exit).toBe('power-cut');
    expect(vm.running).toBe(false);
    expect(() => vm.boot()).toThrow(/boot timed out/);
  });
});
