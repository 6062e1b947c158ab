import { Command, Option } from 'commander';
import { createLogger } from '../logging/logger.js';
import { execFileCommands } from './command-runner.js';
import { restoreInterruptedTrial } from './network/restore-known-good.js';
import { systemRoot } from './system-root.js';

/**
 * `droplet restore-config --device-root D [--system-root R]`: run at boot before the agent (ExecStartPre= of
 * droplet.service). A network change whose trial a power cut or reboot interrupted is replaced by the known-good
 * copy and applied, so the agent connects over the configuration that last worked; the agent reports the failure
 * once connected. Does nothing otherwise. Returns the exit code.
 */
export async function restoreConfigCommand(argv: readonly string[]): Promise<number> {
  const command = new Command('droplet restore-config')
    .description('restore the known-good device configuration if a trial was interrupted (run at boot)')
    .addOption(
      new Option('--device-root <dir>', 'persistent root of the device (config/ and data/)')
        .default('/outpost')
        .env('DROPLET_DEVICE_ROOT'),
    )
    .addOption(
      new Option('--system-root <dir>', 'roots every file written for device configuration')
        .default('/')
        .env('DROPLET_SYSTEM_ROOT'),
    )
    .exitOverride();
  let opts: { deviceRoot: string; systemRoot: string };
  try {
    opts = command.parse(argv, { from: 'user' }).opts<{ deviceRoot: string; systemRoot: string }>();
  } catch (err) {
    return (err as { exitCode?: number }).exitCode ?? 2;
  }
  const logger = createLogger('info');
  try {
    const restored = await restoreInterruptedTrial({
      root: systemRoot(opts.systemRoot),
      deviceRoot: opts.deviceRoot,
      commands: execFileCommands(),
      logger,
    });
    if (!restored) logger.info('no configuration trial was interrupted: nothing to restore');
    return 0;
  } catch (err) {
    logger.error({ err }, 'cannot restore the known-good configuration');
    return 1;
  } finally {
    logger.flush();
  }
}
