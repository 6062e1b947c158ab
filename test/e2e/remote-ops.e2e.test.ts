import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA_FILES } from './harness/device-root.js';
import { hookRuns } from './harness/e2e-device.js';
import { useScenario } from './harness/scenario.js';

/**
 * Issue 6 on a real guest: files copied in and out with `outpost devices scp` over the device's own connection,
 * then `outpost devices reboot --force` (the guest reboots: a new QEMU boot, on-shutdown hook first) and
 * `outpost devices shutdown --force` (the guest powers off).
 */
describe('remote operations through the command line', () => {
  const scenario = useScenario();
  const local = mkdtempSync(join(tmpdir(), 'outpost-e2e-scp-'));
  afterAll(() => rmSync(local, { recursive: true, force: true }));

  it('copies a file in and out with scp, reboots and shuts the guest down with --force', async () => {
    const device = await scenario.device('remote-ops');
    await device.powerOn();
    const cli = scenario.controlPlane.cli;

    const text = `copied in ${randomBytes(8).toString('hex')}\n`.repeat(20_000);
    writeFileSync(join(local, 'payload.txt'), text);
    chmodSync(join(local, 'payload.txt'), 0o640);
    let started = Date.now();
    await cli(['devices', 'scp', join(local, 'payload.txt'), `${device.name}:/outpost/data/e2e-scp/`]);
    await cli(['devices', 'scp', `${device.name}:/outpost/data/e2e-scp/payload.txt`, join(local, 'back.txt')]);
    scenario.timings.since('scp in and out', started);
    expect(readFileSync(join(local, 'back.txt'), 'utf8')).toBe(text);
    expect(statSync(join(local, 'back.txt')).mode & 0o777).toBe(0o640);

    started = Date.now();
    const rebootedFrom = device.vm.boots.length;
    const nextBoot = device.vm.nextBoot(undefined, rebootedFrom);
    await cli(['devices', 'reboot', device.name, '--force']);
    await device.waitForBootOnline(await nextBoot);
    scenario.timings.since('reboot --force → Online again', started);
    expect(device.vm.boots[rebootedFrom - 1]?.exit).toBe('reboot');

    // the data partition kept the file across the reboot
    await cli(['devices', 'scp', `${device.name}:/outpost/data/e2e-scp/payload.txt`, join(local, 'after-reboot.txt')]);
    expect(readFileSync(join(local, 'after-reboot.txt'), 'utf8')).toBe(text);

    started = Date.now();
    await cli(['devices', 'shutdown', device.name, '--force']);
    const last = await device.vm.waitForExit();
    scenario.timings.since('shutdown --force → powered off', started);
    expect(last.exit).toBe('power-off');
    expect(device.vm.running).toBe(false);
    const files = await device.vm.readDataFiles([DATA_FILES.hookLog, '/data/e2e-scp/payload.txt']);
    expect(files['/data/e2e-scp/payload.txt']).toBe(text);
    expect(hookRuns(files[DATA_FILES.hookLog]).filter((run) => run.hook === 'on-shutdown')).toHaveLength(2);
  });
});
