/**
 * What systemd tells a service about its notification socket and watchdog, read from the environment
 * (sd_notify(3), sd_watchdog_enabled(3)): NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID.
 */
export interface NotifySettings {
  /** the unix datagram socket systemd listens on (a file system path) */
  socketPath: string;
  /** systemd's watchdog period (WatchdogSec=), when the watchdog is on for this process */
  watchdogPeriodMs?: number;
}

export type NotifySettingsResult =
  { kind: 'absent' } | { kind: 'settings'; settings: NotifySettings } | { kind: 'unsupported'; reason: string };

/** Reads the settings; `absent` when the agent does not run under a Type=notify unit. */
export function notifySettingsFromEnv(env: NodeJS.ProcessEnv, pid: number): NotifySettingsResult {
  const socket = env.NOTIFY_SOCKET;
  if (socket === undefined || socket === '') return { kind: 'absent' };
  if (!socket.startsWith('/')) {
    return { kind: 'unsupported', reason: `NOTIFY_SOCKET=${socket} is not a file system path (abstract or vsock)` };
  }
  const settings: NotifySettings = { socketPath: socket };
  const period = watchdogPeriodMs(env, pid);
  if (period !== undefined) settings.watchdogPeriodMs = period;
  return { kind: 'settings', settings };
}

function watchdogPeriodMs(env: NodeJS.ProcessEnv, pid: number): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isSafeInteger(usec) || usec <= 0) return undefined;
  // the watchdog is meant for another process of the unit (a wrapper started us): not ours to pet
  const watchdogPid = env.WATCHDOG_PID;
  if (watchdogPid !== undefined && watchdogPid !== '' && Number(watchdogPid) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 1000));
}

/** Drops systemd's notification variables, so the agent's children (pod services, checks) do not inherit them. */
export function forgetNotifySettings(env: NodeJS.ProcessEnv): void {
  for (const name of ['NOTIFY_SOCKET', 'WATCHDOG_USEC', 'WATCHDOG_PID']) delete env[name];
}
