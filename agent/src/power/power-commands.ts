import { POWER_COMMANDS, failedPrecondition, invalidArgument } from '@outpost/shared';
import { z } from 'zod';
import type { AgentLink } from '../link/agent-link.js';
import { describeLocks, heldAt } from '../locks/lock-lease.js';
import type { UpdateLock } from '../locks/lock-lease.js';
import type { Logger } from '../logging/logger.js';
import type { Power, ShutdownHooks } from './power.js';

export interface PowerCommandOptions {
  power: Power;
  runShutdownHooks: ShutdownHooks;
  logger: Logger;
  /** how long the answer gets to leave before the device goes down */
  answerDelayMs?: number;
  /** the update locks a reboot respects unless forced (absent: none) */
  updateLocks?: { list(): Promise<UpdateLock[]> };
  now?: () => number;
}

/** `power.reboot`'s arguments: `force` or `ignoreLocks` reboot although update locks are held. */
const rebootArgsSchema = z
  .strictObject({ force: z.boolean().optional(), ignoreLocks: z.boolean().optional() })
  .optional();

/**
 * `power.reboot` and `power.shutdown` (spec 000 "Remote power actions"): the agent answers at once, then runs the
 * on-shutdown hooks and reboots or powers off through its power adapter. One action at a time.
 */
export function registerPowerCommands(link: AgentLink, options: PowerCommandOptions): () => void {
  let underWay: 'reboot' | 'poweroff' | undefined;
  const act = async (action: 'reboot' | 'poweroff'): Promise<void> => {
    const { logger } = options;
    try {
      await options.runShutdownHooks();
    } catch (err) {
      logger.error({ err }, 'the on-shutdown hooks failed; going on');
    }
    try {
      logger.info({ action }, action === 'reboot' ? 'rebooting on command' : 'powering off on command');
      await options.power[action]();
    } catch (err) {
      underWay = undefined;
      logger.error({ err, action }, 'the power action failed');
    }
  };
  const handler = (action: 'reboot' | 'poweroff') => async (args: unknown) => {
    if (underWay !== undefined) throw failedPrecondition(`the device is already going to ${underWay}`);
    if (action === 'reboot') await refuseWhileLocked(args, options);
    if (underWay !== undefined) throw failedPrecondition(`the device is already going to ${underWay}`);
    underWay = action;
    setTimeout(() => void act(action), options.answerDelayMs ?? 200);
    return { action: action === 'reboot' ? 'REBOOT' : 'SHUTDOWN' };
  };
  const offReboot = link.setCommandHandler(POWER_COMMANDS.reboot, handler('reboot'));
  const offShutdown = link.setCommandHandler(POWER_COMMANDS.shutdown, handler('poweroff'));
  return () => {
    offReboot();
    offShutdown();
  };
}

/** A reboot without force or ignoreLocks is refused while an update lock is held. */
async function refuseWhileLocked(args: unknown, options: PowerCommandOptions): Promise<void> {
  const parsed = rebootArgsSchema.safeParse(args ?? undefined);
  if (!parsed.success) throw invalidArgument('reboot takes only the booleans force and ignoreLocks');
  if (parsed.data?.force === true || parsed.data?.ignoreLocks === true || options.updateLocks === undefined) return;
  const held = heldAt(await options.updateLocks.list(), options.now?.() ?? Date.now());
  if (held.length > 0) {
    throw failedPrecondition(`update locks are held: ${describeLocks(held)}; reboot with --ignore-locks or --force`);
  }
}
