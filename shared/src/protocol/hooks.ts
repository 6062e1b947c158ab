import { z } from 'zod';
import { deviceTime, label, message } from './bounds.js';

/** The user's hooks, files in {device_root}/config/hooks (spec 000 "Hooks"). */
export const HOOK_NAMES = ['on-boot', 'after-droplet', 'on-shutdown'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/**
 * The result of the latest run of one hook (`status.hooks[]`). A hook that is missing or not executable is
 * skipped silently and leaves no run.
 */
export const hookRunSchema = z.object({
  hook: z.enum(HOOK_NAMES),
  /** RFC 3339 time the hook started */
  startTime: deviceTime,
  /** at most a year */
  durationMs: z
    .number()
    .min(0)
    .max(366 * 24 * 3600 * 1000),
  /** absent when the hook was ended by a signal or could not start */
  exitCode: z.int().min(0).max(255).optional(),
  /** the signal that ended it, e.g. SIGKILL after its timeout */
  signal: label.optional(),
  /** true when it ran past its timeout and its process group was killed */
  timedOut: z.boolean(),
  /** the boot it ran in */
  bootId: label,
  /** why it could not start */
  error: message.optional(),
});
export type HookRun = z.infer<typeof hookRunSchema>;
