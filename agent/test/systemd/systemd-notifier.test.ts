import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { systemdNotifier } from '../../src/systemd-notify/systemd-notifier.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { listenForNotifications } from './notify-listener.js';

const tempDir = useTempDirs();
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function listener() {
  const listening = listenForNotifications(await tempDir());
  closers.push(() => listening.close());
  return listening;
}

describe('systemdNotifier (a real unix datagram socket)', () => {
  it('sends READY=1 with one STATUS line, STATUS updates, pets, and STOPPING=1 after which it pets no more', async () => {
    const socket = await listener();
    const { logger } = capturedLogger();
    const notifier = systemdNotifier({
      env: { NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: '100000' },
      pid: process.pid,
      logger,
    });
    closers.push(() => notifier.stopping());
    notifier.ready('droplet 1.0.0\nstarting');
    notifier.status('running as edge-1');
    await eventually(
      () => expect(socket.received.filter((n) => n.fields.WATCHDOG === '1').length).toBeGreaterThanOrEqual(3),
      5_000,
    );
    notifier.stopping();
    await eventually(() => expect(socket.received.at(-1)?.fields).toEqual({ STOPPING: '1' }), 20_000);
    const count = socket.received.length;
    await sleep(200);
    expect(socket.received.length).toBe(count);
    expect(socket.received.slice(0, 2).map((n) => n.fields)).toEqual([
      { READY: '1', STATUS: 'droplet 1.0.0 starting' },
      { STATUS: 'running as edge-1' },
    ]);
  });

  it('does nothing outside a Type=notify unit', async () => {
    const { logger, lines } = capturedLogger();
    const notifier = systemdNotifier({ env: {}, pid: process.pid, logger });
    notifier.ready('starting');
    notifier.stopping();
    expect(lines).toEqual([]);
  });

  it('warns, and sends nothing, for an abstract socket address', async () => {
    const { logger, messages } = capturedLogger();
    systemdNotifier({ env: { NOTIFY_SOCKET: '@/org/example/notify' }, pid: process.pid, logger }).ready('x');
    expect(messages()).toEqual([
      'NOTIFY_SOCKET=@/org/example/notify is not a file system path (abstract or vsock): systemd is not told the agent is ready',
    ]);
  });

  it('logs a socket nobody listens on and carries on', async () => {
    const { logger, messages } = capturedLogger();
    const notifier = systemdNotifier({
      env: { NOTIFY_SOCKET: join(await tempDir(), 'gone') },
      pid: process.pid,
      logger,
    });
    notifier.ready('starting');
    await eventually(() => expect(messages()).toContain('cannot notify systemd'), 20_000);
  });
});
