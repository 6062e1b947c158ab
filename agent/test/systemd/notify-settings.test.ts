import { describe, expect, it } from 'vitest';
import { forgetNotifySettings, notifySettingsFromEnv } from '../../src/systemd-notify/notify-settings.js';
import { petIntervalMs } from '../../src/systemd-notify/watchdog.js';

describe('notifySettingsFromEnv', () => {
  it('is absent outside a Type=notify unit', () => {
    expect(notifySettingsFromEnv({}, 10)).toEqual({ kind: 'absent' });
    expect(notifySettingsFromEnv({ NOTIFY_SOCKET: '' }, 10)).toEqual({ kind: 'absent' });
  });

  it('reads the socket path and the watchdog period in milliseconds', () => {
    expect(notifySettingsFromEnv({ NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000' }, 10)).toEqual({
      kind: 'settings',
      settings: { socketPath: '/run/systemd/notify', watchdogPeriodMs: 30_000 },
    });
    expect(notifySettingsFromEnv({ NOTIFY_SOCKET: '/run/systemd/notify' }, 10)).toEqual({
      kind: 'settings',
      settings: { socketPath: '/run/systemd/notify' },
    });
  });

  it('leaves a watchdog meant for another process alone, and takes one meant for this one', () => {
    const env = { NOTIFY_SOCKET: '/n', WATCHDOG_USEC: '1000000', WATCHDOG_PID: '11' };
    expect(notifySettingsFromEnv(env, 10)).toEqual({ kind: 'settings', settings: { socketPath: '/n' } });
    expect(notifySettingsFromEnv(env, 11)).toEqual({
      kind: 'settings',
      settings: { socketPath: '/n', watchdogPeriodMs: 1000 },
    });
  });

  it('ignores a watchdog period that is not a positive number of microseconds', () => {
    for (const usec of ['0', '-5', 'soon', '1.5']) {
      expect(notifySettingsFromEnv({ NOTIFY_SOCKET: '/n', WATCHDOG_USEC: usec }, 10)).toEqual({
        kind: 'settings',
        settings: { socketPath: '/n' },
      });
    }
  });

  it('says an abstract or vsock address is unsupported', () => {
    expect(notifySettingsFromEnv({ NOTIFY_SOCKET: '@/org/freedesktop/systemd1/notify' }, 10)).toMatchObject({
      kind: 'unsupported',
    });
    expect(notifySettingsFromEnv({ NOTIFY_SOCKET: 'vsock:2:1234' }, 10)).toMatchObject({ kind: 'unsupported' });
  });

  it('forgets the variables so children do not inherit them', () => {
    const env: NodeJS.ProcessEnv = { NOTIFY_SOCKET: '/n', WATCHDOG_USEC: '1', WATCHDOG_PID: '2', HOME: '/root' };
    forgetNotifySettings(env);
    expect(env).toEqual({ HOME: '/root' });
  });
});

describe('petIntervalMs', () => {
  it('pets twice per watchdog period', () => {
    expect(petIntervalMs(30_000)).toBe(15_000);
    expect(petIntervalMs(1)).toBe(1);
  });
});
