import { HOOK_NAMES } from '@outpost/shared';
import type { HookName, HookRun, ReportedStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import type { ShutdownHooks } from '../power/power.js';
import { readHookRun } from './hook-files.js';
import { DEFAULT_HOOK_TIMEOUTS_MS } from './hook-timeouts.js';
import type { HookTimeouts } from './hook-timeouts.js';
import { runHook } from './run-hook.js';

export interface AgentHooksOptions {
  deviceRoot: string;
  /** this boot; a hook's record from another boot means it has not run in this one */
  bootId: string;
  logger: Logger;
  reporter: { report(partial: ReportedStatus): void };
  timeoutsMs?: Partial<HookTimeouts>;
  killGraceMs?: number;
}

/** The hooks as the running agent drives them; every run's result lands in `status.hooks`. */
export interface AgentHooks {
  /**
   * Runs on-boot unless it already ran in this boot. On a device its systemd unit (ordered
   * Before=droplet.service) runs it through `droplet run-hook on-boot`, so this finds the record and does
   * nothing; without systemd (the file backend's simulated boots, an agent on a Linux without our units) the
   * agent runs it itself, before it connects.
   */
  runOnBootIfDue(): Promise<void>;
  /**
   * Reports the recorded runs, then starts after-droplet unless it already ran in this boot: the agent is up,
   * whether or not the control plane can be reached (spec 000: "once the device agent is up").
   */
  start(): Promise<void>;
  /** Runs on-shutdown; called before every reboot or power-off the agent starts. */
  runShutdownHooks: ShutdownHooks;
  /** Ends a hook still running (as systemd does when it stops the agent). */
  stop(): Promise<void>;
}

export function agentHooks(options: AgentHooksOptions): AgentHooks {
  const { deviceRoot, bootId, logger, reporter } = options;
  const timeouts: HookTimeouts = { ...DEFAULT_HOOK_TIMEOUTS_MS, ...options.timeoutsMs };
  const runs = new Map<HookName, HookRun>();
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();

  const report = (): void => {
    const hooks = HOOK_NAMES.flatMap((name) => runs.get(name) ?? []);
    if (hooks.length > 0) reporter.report({ hooks });
  };

  const run = async (name: HookName): Promise<void> => {
    if (stopping.signal.aborted) return;
    const task = runHook({
      deviceRoot,
      name,
      bootId,
      timeoutMs: timeouts[name],
      logger,
      signal: stopping.signal,
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    });
    running.add(task);
    try {
      const result = await task;
      if (result === undefined) return;
      runs.set(name, result);
      report();
    } finally {
      running.delete(task);
    }
  };

  const ranThisBoot = async (name: HookName): Promise<boolean> =>
    (await readHookRun(deviceRoot, name))?.bootId === bootId;

  return {
    async runOnBootIfDue() {
      if (!(await ranThisBoot('on-boot'))) await run('on-boot');
    },

    async start() {
      for (const name of HOOK_NAMES) {
        const recorded = await readHookRun(deviceRoot, name);
        if (recorded !== undefined && !runs.has(name)) runs.set(name, recorded);
      }
      report();
      if (await ranThisBoot('after-droplet')) return;
      void run('after-droplet').catch((err: unknown) => logger.error({ err }, 'the after-droplet hook failed'));
    },

    runShutdownHooks: () => run('on-shutdown'),

    async stop() {
      stopping.abort();
      await Promise.allSettled([...running]);
    },
  };
}
