#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LevelWithSilent } from 'pino';
import { loadOrProvision } from './config/load-or-provision.js';
import type { DeviceIdentity, StartupOptions } from './config/load-or-provision.js';
import { BOOT_BACKENDS, ConfigError, parseBootBackend } from './config/droplet-config.js';
import { agentPaths } from './config/paths.js';
import { registerDevice } from './config/register-device.js';
import { startDroplet } from './droplet.js';
import { LOG_LEVELS, createLogger } from './logging/logger.js';
import { deviceInfoFromFacts } from './metrics/device-info.js';
import { systemFacts } from './metrics/system-facts.js';
import { readAgentVersion, readBootId } from './runtime-facts.js';

/** EX_CONFIG: a problem retrying cannot fix; droplet.service does not restart on it. */
const EXIT_CONFIG = 78;

interface CommandLine {
  deviceRoot: string;
  server?: string;
  provisioningToken?: string;
  deviceId?: string;
  project?: string;
  region?: string;
  deviceType?: string;
  bootBackend?: string;
  factoryVersion?: string;
  metricsInterval?: number;
  logLevel: LevelWithSilent;
  logFile?: string;
}

async function main(): Promise<void> {
  const agentVersion = await readAgentVersion();
  const cli = parseCommandLine(agentVersion);
  const logger = createLogger(cli.logLevel, cli.logFile);
  const paths = agentPaths(cli.deviceRoot);
  const shutdown = new AbortController();
  const stopSignals = ['SIGTERM', 'SIGINT'] as const;
  for (const signal of stopSignals) process.once(signal, () => shutdown.abort());
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));

  const managesOs = (cli.bootBackend ?? 'none') !== 'none';
  let identity: DeviceIdentity;
  try {
    identity = await loadOrProvision(paths, startupOptions(cli), {
      register: registerDevice,
      deviceInfo: async () =>
        deviceInfoFromFacts(await systemFacts.deviceFacts(), {
          managesOs,
          ...(cli.deviceType === undefined ? {} : { deviceType: cli.deviceType }),
        }).deviceInfo,
      logger,
      signal: shutdown.signal,
    });
  } catch (err) {
    if (shutdown.signal.aborted) return;
    throw err;
  }

  const droplet = await startDroplet({
    paths,
    identity,
    agentVersion,
    bootId: await readBootId(),
    facts: systemFacts,
    logger,
  });
  if (!shutdown.signal.aborted) await new Promise((resolve) => shutdown.signal.addEventListener('abort', resolve));
  logger.info('stopping');
  await droplet.stop();
  logger.flush();
}

function parseCommandLine(agentVersion: string): CommandLine {
  const program = new Command('droplet')
    .description(
      'The Outpost device agent: keeps this device connected to its control plane and converged on its record.',
    )
    .version(agentVersion)
    .addOption(
      new Option('--device-root <dir>', 'persistent root of the device (config/ and data/)')
        .default('/outpost')
        .env('DROPLET_DEVICE_ROOT'),
    )
    .addOption(
      new Option('--server <url>', 'the control plane, e.g. https://outpost.example.com').env('DROPLET_SERVER'),
    )
    .addOption(
      new Option('--provisioning-token <token>', 'project provisioning token: registers a new device').env(
        'DROPLET_PROVISIONING_TOKEN',
      ),
    )
    .addOption(new Option('--device-id <id>', 'the id to register this device as').env('DROPLET_DEVICE_ID'))
    .addOption(new Option('--project <project>', 'the project to register the device in').env('DROPLET_PROJECT'))
    .addOption(new Option('--region <region>', 'the region to register the device in').env('DROPLET_REGION'))
    .addOption(new Option('--device-type <type>', 'the device type id this device is').env('DROPLET_DEVICE_TYPE'))
    .addOption(
      new Option('--boot-backend <backend>', 'how A/B slots are switched')
        .choices(BOOT_BACKENDS)
        .env('DROPLET_BOOT_BACKEND'),
    )
    .addOption(
      new Option('--factory-version <version>', 'the OS version the device shipped with').env(
        'DROPLET_FACTORY_VERSION',
      ),
    )
    .addOption(
      new Option('--metrics-interval <seconds>', 'seconds between metrics samples (default 60)')
        .argParser(positiveNumber)
        .env('DROPLET_METRICS_INTERVAL'),
    )
    .addOption(new Option('--log-level <level>').choices(LOG_LEVELS).default('info').env('DROPLET_LOG_LEVEL'))
    .addOption(new Option('--log-file <path>', 'also write logs to this file').env('DROPLET_LOG_FILE'))
    .parse();
  return program.opts<CommandLine>();
}

function startupOptions(cli: CommandLine): StartupOptions {
  const options: StartupOptions = {};
  const copy = <K extends keyof StartupOptions>(key: K, value: StartupOptions[K] | undefined): void => {
    if (value !== undefined && value !== '') options[key] = value;
  };
  copy('server', cli.server);
  copy('provisioningToken', cli.provisioningToken);
  copy('deviceId', cli.deviceId);
  copy('project', cli.project);
  copy('region', cli.region);
  copy('deviceType', cli.deviceType);
  copy('bootBackend', cli.bootBackend === undefined ? undefined : parseBootBackend(cli.bootBackend, '--boot-backend'));
  copy('factoryVersion', cli.factoryVersion);
  copy('metricsIntervalSeconds', cli.metricsInterval);
  return options;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!(number > 0)) throw new InvalidArgumentError('expected a positive number of seconds');
  return number;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`droplet: ${err.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    process.stderr.write(`droplet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
