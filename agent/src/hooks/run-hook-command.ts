import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HOOK_NAMES } from '@outpost/shared';
import type { HookName } from '@outpost/shared';
import type { LevelWithSilent } from 'pino';
import { LOG_LEVELS, createLogger } from '../logging/logger.js';
import { readBootId } from '../runtime-facts.js';
import { readHookRun } from './hook-files.js';
import { DEFAULT_HOOK_TIMEOUTS_MS } from './hook-timeouts.js';
import { DEFAULT_KILL_GRACE_MS } from './process-group.js';
import { runHook } from './run-hook.js';

const EXIT_USAGE = 2;

interface RunHookFlags {
  deviceRoot: string;
  timeout?: number;
  killGrace?: number;
  oncePerBoot?: boolean;
  logLevel: LevelWithSilent;
  logFile?: string;
}

/**
 * `droplet run-hook <on-boot|after-droplet|on-shutdown>`: what the systemd units of the device image run
 * (ExecStart of outpost-on-boot.service, ExecStop of outpost-on-shutdown.service). Runs the hook as the
 * agent would (process group, timeout, output to the log, result in {device_root}/data/hooks/<name>.json
 * under the kernel's boot id) and exits 0 whatever the hook did, so that startup and shutdown go on;
 * 2 for a mistake in the command line. `--once-per-boot` skips a hook already run in this boot (the agent
 * runs on-shutdown itself before a reboot it starts; the unit's ExecStop must not run it twice).
 */
export async function runHookCommand(argv: readonly string[]): Promise<number> {
  const program = new Command('droplet run-hook')
    .description("run one of the user's hooks from {device_root}/config/hooks")
    .argument('<hook>', HOOK_NAMES.join(', '))
    .addOption(
      new Option('--device-root <dir>', 'persistent root of the device').default('/outpost').env('DROPLET_DEVICE_ROOT'),
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'kill the hook and its process group after this long (default: DROPLET_SHUTDOWN_HOOK_TIMEOUT for on-shutdown, DROPLET_HOOK_TIMEOUT for the others, as the agent; else 90 and 300)',
      ).argParser(seconds),
    )
    .addOption(
      new Option('--kill-grace <seconds>', 'between SIGTERM and SIGKILL once the time is up (default 5)').argParser(
        seconds,
      ),
    )
    .option('--once-per-boot', 'do nothing when the hook already ran in this boot')
    .addOption(new Option('--log-level <level>').choices(LOG_LEVELS).default('info').env('DROPLET_LOG_LEVEL'))
    .addOption(new Option('--log-file <path>', 'also write logs to this file').env('DROPLET_LOG_FILE'))
    .exitOverride()
    .action(() => {});
  let name: HookName;
  let flags: RunHookFlags;
  try {
    program.parse([...argv], { from: 'user' });
    name = hookName(program.args[0] ?? '');
    flags = program.opts<RunHookFlags>();
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
    process.stderr.write(`droplet run-hook: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_USAGE;
  }

  const logger = createLogger(flags.logLevel, flags.logFile);
  const bootId = await readBootId();
  if (flags.oncePerBoot && (await readHookRun(flags.deviceRoot, name))?.bootId === bootId) {
    logger.info({ hook: name }, `the ${name} hook already ran in this boot`);
    return 0;
  }
  await runHook({
    deviceRoot: flags.deviceRoot,
    name,
    bootId,
    timeoutMs: (flags.timeout ?? timeoutFromEnv(name, process.env) ?? DEFAULT_HOOK_TIMEOUTS_MS[name] / 1000) * 1000,
    killGraceMs: flags.killGrace === undefined ? DEFAULT_KILL_GRACE_MS : flags.killGrace * 1000,
    logger,
  });
  logger.flush();
  return 0;
}

/** The agent's own settings (droplet.env), so a unit and the agent give a hook the same time. */
function timeoutFromEnv(name: HookName, env: NodeJS.ProcessEnv): number | undefined {
  const value = env[name === 'on-shutdown' ? 'DROPLET_SHUTDOWN_HOOK_TIMEOUT' : 'DROPLET_HOOK_TIMEOUT'];
  const number = Number(value);
  return value !== undefined && value !== '' && number > 0 ? number : undefined;
}

function hookName(value: string): HookName {
  const found = HOOK_NAMES.find((n) => n === value);
  if (found === undefined) throw new Error(`unknown hook "${value}": expected one of ${HOOK_NAMES.join(', ')}`);
  return found;
}

function seconds(value: string): number {
  const number = Number(value);
  if (!(number > 0)) throw new InvalidArgumentError('expected a positive number of seconds');
  return number;
}
