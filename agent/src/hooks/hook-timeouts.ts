import type { HookName } from '@outpost/shared';

/**
 * How long each hook may run before its process group is killed and startup (or shutdown) goes on.
 * on-boot and after-droplet: 5 minutes (spec 000 "Limits"), configurable with `--hook-timeout`.
 * on-shutdown: 90 seconds, configurable with `--shutdown-hook-timeout`; it must end well inside systemd's
 * stop timeout of its unit (TimeoutStopSec=2min) so the reboot is never held up by a hung hook.
 */
export type HookTimeouts = Record<HookName, number>;

export const DEFAULT_HOOK_TIMEOUTS_MS: Readonly<HookTimeouts> = {
  'on-boot': 5 * 60_000,
  'after-droplet': 5 * 60_000,
  'on-shutdown': 90_000,
};
