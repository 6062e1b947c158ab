import type { HookName, HookRun } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { hookFile, isExecutableFile, writeHookRun } from './hook-files.js';
import { runInProcessGroup } from './process-group.js';

export interface RunHookOptions {
  deviceRoot: string;
  name: HookName;
  bootId: string;
  timeoutMs: number;
  killGraceMs?: number;
  logger: Logger;
  /** ends a running hook early (the agent stopping) */
  signal?: AbortSignal;
  now?: () => Date;
}

/**
 * Runs {device_root}/config/hooks/<name> when it is an executable file (anything else is skipped silently:
 * undefined), in its own process group with a timeout. Its output goes to the log line by line (stdout at
 * info, stderr at warn), so to the journal and the agent log; the result is recorded in
 * {device_root}/data/hooks/<name>.json and returned. The hook gets OUTPOST_HOOK, OUTPOST_BOOT_ID and
 * OUTPOST_DEVICE_ROOT in its environment and runs in {device_root}.
 */
export async function runHook(options: RunHookOptions): Promise<HookRun | undefined> {
  const { deviceRoot, name, logger } = options;
  const file = hookFile(deviceRoot, name);
  if (!(await isExecutableFile(file))) {
    logger.debug({ hook: name, file }, 'no executable hook: skipped');
    return undefined;
  }
  const startTime = (options.now?.() ?? new Date()).toISOString();
  logger.info({ hook: name, file, timeoutMs: options.timeoutMs }, `running the ${name} hook`);
  const outcome = await runInProcessGroup({
    file,
    cwd: deviceRoot,
    env: { ...process.env, OUTPOST_HOOK: name, OUTPOST_BOOT_ID: options.bootId, OUTPOST_DEVICE_ROOT: deviceRoot },
    timeoutMs: options.timeoutMs,
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onOutput: (stream, line) =>
      stream === 'stdout' ? logger.info({ hook: name, stream }, line) : logger.warn({ hook: name, stream }, line),
  });
  const run: HookRun = {
    hook: name,
    startTime,
    durationMs: outcome.durationMs,
    timedOut: outcome.timedOut,
    bootId: options.bootId,
  };
  if (outcome.exitCode !== undefined) run.exitCode = outcome.exitCode;
  if (outcome.signal !== undefined) run.signal = outcome.signal;
  if (outcome.error !== undefined) run.error = outcome.error;
  const summary = { ...run, file };
  if (run.timedOut) logger.warn(summary, `the ${name} hook ran past its timeout: its process group was killed`);
  else if (run.exitCode === 0) logger.info(summary, `the ${name} hook finished`);
  else logger.warn(summary, `the ${name} hook failed`);
  try {
    await writeHookRun(deviceRoot, run);
  } catch (err) {
    logger.warn({ err, hook: name }, 'cannot record the hook run');
  }
  return run;
}
