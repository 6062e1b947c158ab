import { POWER_COMMANDS, failedPrecondition } from '@outpost/shared';
import type { AgentLink } from '../link/agent-link.js';
import type { Logger } from '../logging/logger.js';
import type { Power, ShutdownHooks } from './power.js';

export interface PowerCommandOptions {
  power: Power;
  runShutdownHooks: ShutdownHooks;
  logger: Logger;
  /** how long the answer gets to leave before the device goes down */
  answerDelayMs?: number;
}

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
  const handler = (action: 'reboot' | 'poweroff') => () => {
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
