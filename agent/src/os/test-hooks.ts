import { rmSync } from 'node:fs';
import { parseStepBoundary } from './step-boundaries.js';
import type { StepBoundary } from './step-boundaries.js';

/**
 * Test hooks, from the environment (documented for the test harnesses):
 *
 *  OUTPOST_TEST_NEVER_COMMIT=1      never commit a trial boot (every backend): the commit timeout then
 *                                   reboots and the bootloader falls back
 *  OUTPOST_TEST_EXIT_AT=<boundary>  SIGKILL the agent itself once <boundary> (step-boundaries.ts) is durable
 *  OUTPOST_TEST_POWER_CUT_AT=<b>    the same, after losing the simulated device's RAM ({device_root}/sim-run/):
 *                                   a power cut there (file backend)
 *  OUTPOST_TEST_FREE_BYTES=<n>      pretend the slots' filesystem has n bytes free (file backend)
 *
 * The harness restarts the agent without the EXIT_AT / POWER_CUT_AT variable, or it dies there again.
 */
export interface OsTestHooks {
  neverCommit: boolean;
  exitAt?: StepBoundary;
  powerCutAt?: StepBoundary;
  freeBytes?: number;
}

export function osTestHooksFromEnv(env: NodeJS.ProcessEnv): OsTestHooks {
  const hooks: OsTestHooks = { neverCommit: env['OUTPOST_TEST_NEVER_COMMIT'] === '1' };
  const exitAt = parseStepBoundary(env['OUTPOST_TEST_EXIT_AT']);
  if (exitAt !== undefined) hooks.exitAt = exitAt;
  const powerCutAt = parseStepBoundary(env['OUTPOST_TEST_POWER_CUT_AT']);
  if (powerCutAt !== undefined) hooks.powerCutAt = powerCutAt;
  const freeBytes = Number(env['OUTPOST_TEST_FREE_BYTES']);
  if (env['OUTPOST_TEST_FREE_BYTES'] !== undefined && Number.isSafeInteger(freeBytes) && freeBytes >= 0) {
    hooks.freeBytes = freeBytes;
  }
  return hooks;
}

/** The fault injection of OUTPOST_TEST_EXIT_AT / OUTPOST_TEST_POWER_CUT_AT, or undefined when neither is set. */
export function faultInjection(
  hooks: OsTestHooks,
  volatileDir: string | undefined,
): ((boundary: StepBoundary) => void) | undefined {
  if (hooks.exitAt === undefined && hooks.powerCutAt === undefined) return undefined;
  return (boundary) => {
    const powerCut = hooks.powerCutAt === boundary;
    if (!powerCut && hooks.exitAt !== boundary) return;
    if (powerCut && volatileDir !== undefined) rmSync(volatileDir, { recursive: true, force: true });
    process.stderr.write(`droplet: test hook: ${powerCut ? 'power cut' : 'killed'} at ${boundary}\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}
