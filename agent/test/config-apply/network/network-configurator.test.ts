import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingCommands } from '../../../src/config-apply/command-runner.js';
import type { CommandResult } from '../../../src/config-apply/command-runner.js';
import type { LinkHealth } from '../../../src/config-apply/link-health.js';
import { partCondition } from '../../../src/config-apply/part-status.js';
import type { PartReport } from '../../../src/config-apply/part-status.js';
import { NetworkConfigurator } from '../../../src/config-apply/network/network-configurator.js';
import { restoreInterruptedTrial } from '../../../src/config-apply/network/restore-known-good.js';
import { systemRoot } from '../../../src/config-apply/system-root.js';
import { capturedLogger } from '../../helpers/captured-logger.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();

const IMAGE_DHCP = '[Match]\nName=en*\n\n[Network]\nDHCP=ipv4\n';
const uplink = (address: string): string =>
  `network:\n  version: 2\n  ethernets:\n    enp0s2:\n      addresses: [${address}]\n      routes: [{to: default, via: 10.0.2.2}]\n`;
const GOOD = uplink('10.0.2.15/24, 10.0.2.16/24');
const WRONG_SUBNET = uplink('192.168.77.15/24');
const OUTPOST_FILE = 'etc/systemd/network/05-outpost-enp0s2.network';

/** A stand-in for the link: welcomes are given by the test; reconnects are counted. */
function fakeLink(): LinkHealth & { welcome(): void; reconnects: number } {
  const listeners = new Set<() => void>();
  return {
    reconnects: 0,
    isConnected: () => true,
    onWelcome(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reconnect() {
      this.reconnects += 1;
    },
    welcome() {
      for (const listener of [...listeners]) listener();
    },
  };
}

/** A device folder pair: the system root (with the image's DHCP file and a networkctl) and the device root. */
async function device(options: { backend?: 'networkd' | 'netplan'; answer?: (argv: string[]) => CommandResult } = {}) {
  const root = await tempDir();
  const deviceRoot = await tempDir();
  await mkdir(join(root, 'etc/systemd/network'), { recursive: true });
  await writeFile(join(root, 'etc/systemd/network/10-dhcp.network'), IMAGE_DHCP);
  const executable = options.backend === 'netplan' ? 'usr/sbin/netplan' : 'usr/bin/networkctl';
  await mkdir(join(root, executable, '..'), { recursive: true });
  await writeFile(join(root, executable), '#!/bin/sh\nexit 0\n');
  await chmod(join(root, executable), 0o755);
  const commands = recordingCommands(options.answer);
  const link = fakeLink();
  const reports: PartReport[] = [];
  const { logger } = capturedLogger();
  const make = () =>
    new NetworkConfigurator({
      root: systemRoot(root),
      deviceRoot,
      commands,
      link,
      logger,
      sink: { report: (_part, report) => reports.push(report) },
    });
  const configurator = make();
  await configurator.start();
  const last = (): PartReport => {
    const report = reports.at(-1);
    if (report === undefined) throw new Error('nothing reported');
    return report;
  };
  const condition = () => partCondition('network', last());
  const outpostFiles = async () =>
    (await readdir(join(root, 'etc/systemd/network'))).filter((name) => name.startsWith('05-outpost-'));
  return { root, deviceRoot, commands, link, reports, configurator, make, last, condition, outpostFiles };
}

const spec = (netplanYamlConfig?: string, extra: Record<string, unknown> = {}) => ({
  ...(netplanYamlConfig === undefined ? {} : { netplanYamlConfig }),
  ...extra,
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('network configuration with a dead-man switch', () => {
  it('starts on the factory configuration and reports it applied', async () => {
    const d = await device();
    expect(d.last()).toEqual({ desiredGeneration: 0, source: 'factory', phase: { phase: 'applied' } });
    expect(d.condition()).toMatchObject({ type: 'NetworkConfigured', status: 'True', reason: 'Applied' });
    expect(d.commands.calls).toEqual([]);
  });

  it('keeps a change when the link comes back within the grace period', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(GOOD), 3);
    expect(d.condition()).toMatchObject({ status: 'Unknown', reason: 'Trial' });
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toContain('Address=10.0.2.16/24');
    expect(d.commands.calls).toEqual([[join(d.root, 'usr/bin/networkctl'), 'reload']]);
    expect(d.link.reconnects).toBe(1);

    d.link.welcome();
    await d.configurator.settled();
    expect(d.last()).toEqual({
      desiredGeneration: 3,
      appliedGeneration: 3,
      source: 'desired',
      phase: { phase: 'applied' },
    });
    expect(d.condition()).toMatchObject({ status: 'True', reason: 'Applied', message: 'generation 3 is in force' });
    const knownGood = JSON.parse(await readFile(join(d.deviceRoot, 'config/network/known-good/manifest.json'), 'utf8'));
    expect(knownGood).toMatchObject({ source: 'desired', generation: 3, interfaces: ['enp0s2'] });
    // the grace period passing later changes nothing
    await vi.advanceTimersByTimeAsync(200_000);
    await d.configurator.settled();
    expect(d.condition()).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(d.commands.calls).toHaveLength(1);
  });

  it('restores the known-good configuration when the link does not come back, and says why', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(GOOD), 3);
    d.link.welcome();
    await d.configurator.settled();
    const good = await readFile(join(d.root, OUTPOST_FILE), 'utf8');

    await d.configurator.setDesired(spec(WRONG_SUBNET, { networkConfigGraceSeconds: 30 }), 4);
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toContain('Address=192.168.77.15/24');
    await vi.advanceTimersByTimeAsync(29_000);
    await d.configurator.settled();
    expect(d.condition()).toMatchObject({ reason: 'Trial' });
    await vi.advanceTimersByTimeAsync(1_000);
    await d.configurator.settled();

    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toBe(good);
    expect(d.last()).toMatchObject({ desiredGeneration: 4, appliedGeneration: 3, source: 'known-good' });
    expect(d.condition()).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
      message:
        'the link to the control plane did not come back within 30 s of applying generation 4; restored the known-good configuration (generation 3)',
    });
    expect(d.commands.calls.map((argv) => argv.slice(1))).toEqual([['reload'], ['reload'], ['reload']]);
    // one reconnect through each change, and one at once through the restored configuration
    expect(d.link.reconnects).toBe(3);
    // the same spec again is not retried; a welcome now (the old network is back) changes nothing
    d.link.welcome();
    await d.configurator.setDesired(spec(WRONG_SUBNET, { networkConfigGraceSeconds: 30 }), 5);
    expect(d.commands.calls).toHaveLength(3);
    expect(d.condition()).toMatchObject({ reason: 'RolledBack' });
  });

  it('restores the factory configuration (no Outpost files) after a first change that fails', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(WRONG_SUBNET), 2);
    await vi.advanceTimersByTimeAsync(120_000);
    await d.configurator.settled();
    expect(await d.outpostFiles()).toEqual([]);
    expect(await readFile(join(d.root, 'etc/systemd/network/10-dhcp.network'), 'utf8')).toBe(IMAGE_DHCP);
    expect(d.last()).toMatchObject({ source: 'factory', phase: { phase: 'rolled-back' } });
  });

  it('a restart during the trial restores the known-good configuration and reports the failure', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(GOOD), 3);
    d.link.welcome();
    await d.configurator.settled();
    const good = await readFile(join(d.root, OUTPOST_FILE), 'utf8');
    await d.configurator.setDesired(spec(WRONG_SUBNET), 4);
    // power cut: the process is gone; the boot path runs before the agent
    d.configurator.stop();
    const { logger } = capturedLogger();
    expect(
      await restoreInterruptedTrial({
        root: systemRoot(d.root),
        deviceRoot: d.deviceRoot,
        commands: d.commands,
        logger,
      }),
    ).toBe(true);
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toBe(good);

    const next = d.make();
    await next.start();
    expect(d.condition()).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
      message:
        'the device restarted during the trial of network generation 4; restored the known-good configuration (generation 3)',
    });
    expect(d.last()).toMatchObject({ desiredGeneration: 4, appliedGeneration: 3, source: 'known-good' });
    // the spec it gets once connected is the one that failed: not tried again
    await next.setDesired(spec(WRONG_SUBNET), 4);
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toBe(good);
  });

  it('refuses invalid YAML, changing nothing and running nothing', async () => {
    const d = await device();
    await d.configurator.setDesired(spec('network: {version: 2, ethernets: {eth0: {addresses: [not-an-ip]}}}'), 2);
    expect(d.condition()).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message:
        'netplanYamlConfig.network.ethernets.eth0.addresses[0]: "not-an-ip" is not a CIDR address such as "10.0.0.1/24"',
    });
    expect(d.last()).toMatchObject({ desiredGeneration: 2, source: 'factory' });
    expect(d.last().appliedGeneration).toBeUndefined();
    expect(await d.outpostFiles()).toEqual([]);
    expect(d.commands.calls).toEqual([]);
  });

  it('a change the system refuses is reported failed and the known-good files are put back', async () => {
    const d = await device({
      answer: (argv) =>
        argv.includes('reload') && d.commands.calls.length === 1
          ? { exitCode: 1, stdout: '', stderr: 'Failed to reload network settings: bad' }
          : { exitCode: 0, stdout: '', stderr: '' },
    });
    await d.configurator.setDesired(spec(GOOD), 2);
    expect(d.condition()).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message:
        'networkctl reload failed (exit code 1): Failed to reload network settings: bad; the known-good configuration was restored',
    });
    expect(await d.outpostFiles()).toEqual([]);
    expect(d.link.reconnects).toBe(0);
  });

  it('with the fallback disabled applies at once and keeps the change without waiting for the link', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(WRONG_SUBNET, { disableNetworkConfigFallback: true }), 2);
    expect(d.condition()).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(d.link.reconnects).toBe(0);
    await vi.advanceTimersByTimeAsync(200_000);
    await d.configurator.settled();
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toContain('192.168.77.15/24');
  });

  it('a newer change during a trial supersedes it: the old grace period does not roll the new one back', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(WRONG_SUBNET, { networkConfigGraceSeconds: 30 }), 2);
    await vi.advanceTimersByTimeAsync(20_000);
    await d.configurator.setDesired(spec(GOOD, { networkConfigGraceSeconds: 30 }), 3);
    await vi.advanceTimersByTimeAsync(15_000);
    await d.configurator.settled();
    expect(d.condition()).toMatchObject({ reason: 'Trial' });
    expect(await readFile(join(d.root, OUTPOST_FILE), 'utf8')).toContain('10.0.2.16/24');
    d.link.welcome();
    await d.configurator.settled();
    expect(d.last()).toMatchObject({ appliedGeneration: 3, phase: { phase: 'applied' } });
  });

  it('removing the configuration goes back to the factory files, on trial like any change', async () => {
    const d = await device();
    await d.configurator.setDesired(spec(GOOD), 2);
    d.link.welcome();
    await d.configurator.settled();
    await d.configurator.setDesired(spec(undefined), 3);
    expect(await d.outpostFiles()).toEqual([]);
    d.link.welcome();
    await d.configurator.settled();
    expect(d.last()).toMatchObject({ desiredGeneration: 3, appliedGeneration: 3, source: 'factory' });
  });

  it('uses netplan where it is installed: 90-outpost.yaml, root-only, and netplan apply', async () => {
    const d = await device({ backend: 'netplan' });
    await d.configurator.setDesired(spec(GOOD), 2);
    const file = join(d.root, 'etc/netplan/90-outpost.yaml');
    expect(await readFile(file, 'utf8')).toContain('10.0.2.16/24');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(d.commands.calls).toEqual([[join(d.root, 'usr/sbin/netplan'), 'apply']]);
    expect(await d.outpostFiles()).toEqual([]);
  });
});
