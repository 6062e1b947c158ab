import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtDroplet } from '../helpers/built-droplet.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { listenForNotifications } from './notify-listener.js';
import type { NotifyListener } from './notify-listener.js';

const tempDir = useTempDirs();
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
// long enough that a loaded machine's delays in reading the datagrams stay small against the half-period gap
const WATCHDOG_PERIOD_MS = 2_000;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A port on 127.0.0.1 nothing listens on: the agent keeps retrying its registration there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The real droplet command (the built agent/dist/main.js) as systemd starts it under Type=notify with WatchdogSec=. */
async function dropletUnderSystemd(
  listener: NotifyListener,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; stderr: () => string }> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NOTIFY_SOCKET: listener.path,
    WATCHDOG_USEC: String(WATCHDOG_PERIOD_MS * 1000),
    ...env,
  };
  for (const key of Object.keys(childEnv)) if (key.startsWith('DROPLET_')) delete childEnv[key];
  const deviceRoot = await tempDir();
  const child = spawn(
    process.execPath,
    [
      builtDroplet(),
      '--device-root',
      deviceRoot,
      '--server',
      `http://127.0.0.1:${await closedPort()}`,
      '--provisioning-token',
      'prov-token',
      '--project',
      'p1',
      '--region',
      'eu',
      '--device-id',
      'edge-1',
      '--log-level',
      'warn',
    ],
    { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  cleanups.push(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

const watchdogPets = (listener: NotifyListener): number[] =>
  listener.received.filter((n) => n.fields.WATCHDOG === '1').map((n) => n.atMs);

describe('droplet under a Type=notify unit with a watchdog (real child process, real unix datagram socket)', () => {
  it('says READY=1 first, then pets the watchdog twice per period, and none once its event loop is frozen', async () => {
    const listener = listenForNotifications(await tempDir());
    cleanups.push(() => listener.close());
    const { child, stderr } = await dropletUnderSystemd(listener, { OUTPOST_TEST_FREEZE_ON_SIGUSR2: '1' });

    await eventually(() => expect(watchdogPets(listener).length).toBeGreaterThanOrEqual(4), 60_000);
    expect(listener.received[0]?.fields).toMatchObject({ READY: '1' });
    expect(listener.received[0]?.fields.STATUS).toMatch(/^droplet \S+ starting$/);
    const pets = watchdogPets(listener);
    const gaps = pets.slice(1).map((at, i) => at - (pets[i] ?? at));
    // twice per period: the typical gap is half of it. The times are when this process read each datagram, so a
    // loaded machine shifts them both ways: the lower bound only rules out petting far faster than that.
    const medianGap = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] ?? Infinity;
    expect(medianGap).toBeGreaterThanOrEqual(WATCHDOG_PERIOD_MS / 4);
    expect(medianGap).toBeLessThan(WATCHDOG_PERIOD_MS);

    child.kill('SIGUSR2');
    await eventually(() => expect(stderr()).toContain('freezing the event loop'), 20_000);
    await sleep(WATCHDOG_PERIOD_MS / 2); // the pets sent before it are read from the socket
    const petsWhenFrozen = watchdogPets(listener).length;
    await sleep(WATCHDOG_PERIOD_MS * 4);
    expect(watchdogPets(listener).length).toBe(petsWhenFrozen);
    expect(child.exitCode).toBeNull(); // frozen, not gone: systemd's watchdog is what ends it
  }, 120_000);

  it('says STOPPING=1 on SIGTERM and stops petting', async () => {
    const listener = listenForNotifications(await tempDir());
    cleanups.push(() => listener.close());
    const { child } = await dropletUnderSystemd(listener);
    await eventually(() => expect(watchdogPets(listener).length).toBeGreaterThanOrEqual(1), 60_000);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // the child's exit may be seen before its last datagrams are read from the socket
    const stopping = await eventually(() => {
      const index = listener.received.findIndex((n) => n.fields.STOPPING === '1');
      expect(index).toBeGreaterThan(0);
      return index;
    });
    await sleep(WATCHDOG_PERIOD_MS / 2); // anything sent after it is read too
    expect(listener.received.slice(stopping + 1).filter((n) => n.fields.WATCHDOG === '1')).toEqual([]);
  }, 90_000);

  it('pets no watchdog that systemd runs for another process of the unit', async () => {
    const listener = listenForNotifications(await tempDir());
    cleanups.push(() => listener.close());
    await dropletUnderSystemd(listener, { WATCHDOG_PID: '1' });
    await eventually(() => expect(listener.received.length).toBeGreaterThanOrEqual(1), 60_000);
    await sleep(WATCHDOG_PERIOD_MS * 3);
    expect(listener.received.map((n) => n.fields.READY)).toEqual(['1']);
    expect(watchdogPets(listener)).toEqual([]);
  }, 90_000);
});
