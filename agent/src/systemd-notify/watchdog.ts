/** How often the watchdog is petted: twice per period, as sd_watchdog_enabled(3) recommends. */
export function petIntervalMs(watchdogPeriodMs: number): number {
  return Math.max(1, Math.floor(watchdogPeriodMs / 2));
}

export interface Watchdog {
  stop(): void;
}

/**
 * Pets systemd's watchdog from a timer of the event loop. The timer is the health check: a loop that is blocked
 * (a busy or stuck synchronous call, a deadlock in a native call) runs no timers, so the pets stop and systemd
 * restarts the agent once WatchdogSec has passed without one.
 */
export function startWatchdog(pet: () => void, watchdogPeriodMs: number): Watchdog {
  const timer = setInterval(pet, petIntervalMs(watchdogPeriodMs));
  // the watchdog alone must not keep a stopping agent alive
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
