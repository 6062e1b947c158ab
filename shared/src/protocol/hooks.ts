import { z } from 'zod';

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
  startTime: z.iso.datetime({ offset: true }),
  durationMs: z.number().nonnegative(),
  /** absent when the hook was ended by a signal or could not start */
  exitCode: z.int().optional(),
  /** the signal that ended it, e.g. SIGKILL after its timeout */
  signal: z.string().optional(),
  /** true when it ran past its timeout and its process group was killed */
  timedOut: z.boolean(),
  /** the boot it ran in */
  bootId: z.string(),
  /** why it could not start */
  error: z.string().optional(),
});
export type HookRun = z.infer<typeof hookRunSchema>;
