/**
 * Issue 19: maintenance windows and update locks meet `outpost devices reboot` against a real droplet on the
 * simulated device. A lock taken with the real `droplet lock acquire` shows in status.maintenance; a reboot's
 * prompt says the window is closed and names the lock; the device refuses the reboot while the lock is held,
 * unless --ignore-locks or --force. Bad spec.updatePolicy writes and bad :reboot bodies are 400s.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';
import { REPO, RemoteOpsWorld, online } from './remote-ops-fixture.js';

const parent = 'projects/maint/regions/eu';
const world = new RemoteOpsWorld();
beforeAll(() => world.start(), 60_000);
afterAll(() => world.stop());

const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs the real `droplet lock <args>` from the sources. */
async function droplet(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', TSX, join(REPO, 'agent/src/main.ts'), ...args], {
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', TSX_TSCONFIG_PATH: join(REPO, 'tsconfig.check.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout };
}

const bootIdOf = async (name: string): Promise<string | undefined> =>
  (await world.server.admin.get<Device>(name)).status?.agent?.bootId;

/** A daily one-hour window twelve hours from now (UTC): closed now. */
const closedWindow = { schedule: `0 ${(new Date().getUTCHours() + 12) % 24} * * *`, duration: '1h', timeZone: 'UTC' };

describe('reboot with maintenance windows and update locks', () => {
  it('the prompt says the window is closed and names the held lock; the lock refuses a reboot unless overridden', async (context) => {
    const name = perAttempt(context, `${parent}/devices/locked`);
    const agent = await world.onlineDevice(name);
    await world.server.admin.update<Device>(
      { name, spec: { updatePolicy: { maintenanceWindows: [closedWindow] } } },
      { updateMask: 'spec.updatePolicy' },
    );
    const acquired = await droplet(['lock', 'acquire', 'db', '--ttl', '10m', '--device-root', agent.root]);
    expect(acquired.code).toBe(0);
    expect(acquired.stdout).toMatch(/^acquired update lock db until \d{4}-/);
    const seen = await waitForDevice(
      world.server.admin,
      name,
      (d) => d.status?.maintenance?.heldLocks.some((l) => l.name === 'db') === true && !d.status.maintenance.windowOpen,
      60_000,
    );
    const firstBoot = seen.status?.agent?.bootId;

    const declined = await world.cliOnTerminal(['devices', 'reboot', name], 'no');
    expect(declined.stdout).toMatch(/note: its maintenance window is closed \(the next opens at \d{4}-.*Z\)\./);
    expect(declined.stdout).toMatch(/note: update locks are held: db \(until .*\); the device refuses a reboot/);

    const refused = await world.cliOnTerminal(['devices', 'reboot', name], 'yes');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/update locks are held: db .*--ignore-locks or --force/);
    expect(await bootIdOf(name)).toBe(firstBoot);

    const overridden = await world.cliOnTerminal(['devices', 'reboot', name, '--ignore-locks'], 'yes');
    expect(overridden.code, overridden.stdout).toBe(0);
    const second = await waitForDevice(
      world.server.admin,
      name,
      (d) => online(d) && d.status?.agent?.bootId !== firstBoot,
      60_000,
    );

    // the lock file is in {device_root}/data: it outlives the reboot; --force goes through it without asking
    const forced = await world.cli(['devices', 'reboot', name, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const third = await waitForDevice(
      world.server.admin,
      name,
      (d) => online(d) && d.status?.agent?.bootId !== second.status?.agent?.bootId,
      60_000,
    );
    expect(third.status?.agent?.bootId).toBeDefined();

    expect((await droplet(['lock', 'release', 'db', '--device-root', agent.root])).stdout).toBe(
      'released update lock db\n',
    );
    await waitForDevice(world.server.admin, name, (d) => d.status?.maintenance?.heldLocks.length === 0, 60_000);
  }, 180_000);

  it('refuses a bad :reboot body and a bad spec.updatePolicy with 400, changing nothing', async (context) => {
    const name = perAttempt(context, `${parent}/devices/strict`);
    await world.onlineDevice(name);
    const bootId = await bootIdOf(name);
    const badBody = await world.server.admin
      .request('POST', `/v1/${name}:reboot`, { body: { force: 'yes' } })
      .catch((err: unknown) => err);
    expect(badBody).toBeInstanceOf(ApiError);
    expect((badBody as ApiError).status).toBe('INVALID_ARGUMENT');
    expect((badBody as ApiError).message).toMatch(/force must be a boolean/);

    const badPolicy = await world.server.admin
      .update<Device>(
        {
          name,
          spec: {
            updatePolicy: {
              maintenanceWindows: [
                { schedule: '0 25 * * *', duration: '2h' },
                { schedule: '0 2 L * *', duration: '2 hours', timeZone: 'Europe/Atlantis' },
              ],
            },
          },
        },
        { updateMask: 'spec.updatePolicy' },
      )
      .catch((err: unknown) => err);
    expect(badPolicy).toBeInstanceOf(ApiError);
    const message = (badPolicy as ApiError).message;
    expect(message).toMatch(/spec\.updatePolicy\.maintenanceWindows\[0\]\.schedule: "0 25 \* \* \*" is not a cron/);
    expect(message).toMatch(/maintenanceWindows\[1\]\.schedule: "0 2 L \* \*" uses L, W, # or \?/);
    expect(message).toMatch(/maintenanceWindows\[1\]\.duration: "2 hours" is not a duration/);
    expect(message).toMatch(/maintenanceWindows\[1\]\.timeZone: "Europe\/Atlantis" is not an IANA time zone/);
    expect((await world.server.admin.get<Device>(name)).spec?.updatePolicy).toBeUndefined();
    expect(await bootIdOf(name)).toBe(bootId);
  }, 150_000);
});
