/**
 * Issue 6, power: `outpost devices reboot|shutdown <device_name> [--force]` against real droplets on the simulated
 * device (file boot backend: a reboot restarts the agent in its process with a new boot id, a shutdown ends it).
 * The confirmation prompt is answered on a real pseudo-terminal.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Device } from '@outpost/shared';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';
import { RemoteOpsWorld, offline, online } from './remote-ops-fixture.js';

const parent = 'projects/power/regions/eu';
const world = new RemoteOpsWorld();
// each test starts a droplet through tsx, which alone may wait a minute for it on a loaded machine
vi.setConfig({ testTimeout: 150_000 });
beforeAll(() => world.start(), 60_000);
afterAll(() => world.stop());

const bootIdOf = async (name: string): Promise<string | undefined> =>
  (await world.server.admin.get<Device>(name)).status?.agent?.bootId;

/** Waits until the device is Online and has reported the boot it runs in; answers that boot id. */
const currentBoot = async (name: string): Promise<string | undefined> =>
  (await waitForDevice(world.server.admin, name, (d) => online(d) && d.status?.agent?.bootId !== undefined, 60_000))
    .status?.agent?.bootId;

/** Waits until the device is Online in a boot other than `bootId`. */
const rebooted = (name: string, bootId: string | undefined): Promise<Device> =>
  waitForDevice(world.server.admin, name, (d) => online(d) && d.status?.agent?.bootId !== bootId, 60_000);

/** An on-shutdown hook that appends a line to {device_root}/data/shutdown-hook.log. */
function installShutdownHook(root: string): string {
  const hooks = join(root, 'config', 'hooks');
  mkdirSync(hooks, { recursive: true });
  const log = join(root, 'data', 'shutdown-hook.log');
  writeFileSync(join(hooks, 'on-shutdown'), `#!/bin/sh\necho ran >> '${log}'\n`);
  chmodSync(join(hooks, 'on-shutdown'), 0o755);
  return log;
}

describe('reboot', () => {
  it('asks on the terminal: "yes" reboots the device (on-shutdown hook first), anything else sends nothing', async (context) => {
    const name = perAttempt(context, `${parent}/devices/reboot-prompt`);
    const root = await world.provision(name);
    const hookLog = installShutdownHook(root);
    const agent = world.startAgent(root);
    const firstBoot = await currentBoot(name);

    const declined = await world.cliOnTerminal(['devices', 'reboot', name], 'no');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toMatch(/warning: this will reboot/);
    expect(declined.stdout).toMatch(/aborted: .* was not sent anything/);
    expect(await bootIdOf(name)).toBe(firstBoot);
    expect(existsSync(hookLog)).toBe(false);

    const accepted = await world.cliOnTerminal(['devices', 'reboot', name], 'yes');
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.stdout).toMatch(/reboot of .* requested/);
    await rebooted(name, firstBoot);
    expect(readFileSync(hookLog, 'utf8')).toBe('ran\n');
    expect(agent.child.exitCode).toBeNull(); // the simulated device rebooted in the same process
  });

  it('--force reboots without asking; without a terminal and without --force it is a usage error', async (context) => {
    const name = perAttempt(context, `${parent}/devices/reboot-force`);
    await world.onlineDevice(name);
    const firstBoot = await currentBoot(name);
    const refused = await world.cli(['devices', 'reboot', name]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no terminal to confirm on: pass --force/);
    expect(await bootIdOf(name)).toBe(firstBoot);

    const forced = await world.cli(['devices', 'reboot', name, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    await rebooted(name, firstBoot);
  });

  it('an offline device cannot be rebooted: UNAVAILABLE', async (context) => {
    const name = perAttempt(context, `${parent}/devices/reboot-offline`);
    await world.provision(name);
    const result = await world.cli(['devices', 'reboot', name, '--force']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/UNAVAILABLE: cannot reboot: device ".*" is offline/);
  });
});

describe('shutdown', () => {
  it('"yes" on the terminal powers the device off: the agent ends and the device goes Offline', async (context) => {
    const name = perAttempt(context, `${parent}/devices/shutdown-prompt`);
    const root = await world.provision(name);
    const hookLog = installShutdownHook(root);
    const agent = world.startAgent(root);
    await waitForDevice(world.server.admin, name, online, 60_000);
    const declined = await world.cliOnTerminal(['devices', 'shutdown', name], 'nope');
    expect(declined.code).toBe(1);
    expect(agent.child.exitCode).toBeNull();

    const accepted = await world.cliOnTerminal(['devices', 'shutdown', name], 'yes');
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    await waitForDevice(world.server.admin, name, offline, 30_000);
    expect(readFileSync(hookLog, 'utf8')).toBe('ran\n');
  });

  it('--force powers off without asking', async (context) => {
    const name = perAttempt(context, `${parent}/devices/shutdown-force`);
    const agent = await world.onlineDevice(name);
    const result = await world.cli(['devices', 'shutdown', name, '--force', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ name, action: 'SHUTDOWN' });
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    await waitForDevice(world.server.admin, name, offline, 30_000);
  });
});
