/** The droplet command line: parses the options, provisions the device if needed and runs the agent. */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LevelWithSilent } from 'pino';
import { loadOrProvision } from './config/load-or-provision.js';
import type { DeviceIdentity, StartupOptions } from './config/load-or-provision.js';
import { BOOT_BACKENDS, ConfigError, parseBootBackend } from './config/droplet-config.js';
import type { BootBackend } from './config/droplet-config.js';
import { agentPaths } from './config/paths.js';
import { registerDevice } from './config/register-device.js';
import { readCaFile, transportTo } from './config/transport-security.js';
import type { TransportSecurity } from './config/transport-security.js';
import { startDroplet } from './droplet.js';
import type { HookTimeouts } from './hooks/hook-timeouts.js';
import type { DropletOsOptions } from './droplet.js';
import { bootDevice, defaultDeviceType, defaultTrustDirs } from './os/device-boot.js';
import type { BootSettings } from './os/device-boot.js';
import type { BootBackend as BootBackendAdapter } from './os/boot/boot-backend.js';
import { faultInjection, osTestHooksFromEnv } from './os/test-hooks.js';
import type { OsTestHooks } from './os/test-hooks.js';
import { parseByteSize } from './config/byte-size.js';
import { DEFAULT_WORKLOAD_USER } from './config/user-account.js';
import { resolveWorkloadUser } from './workloads/workload-user.js';
import { LOG_LEVELS, createLogger } from './logging/logger.js';
import { deviceInfoFromFacts } from './metrics/device-info.js';
import { systemFacts } from './metrics/system-facts.js';
import { readAgentVersion } from './runtime-facts.js';
import { installFreezeHook } from './systemd-notify/freeze-hook.js';
import { forgetNotifySettings } from './systemd-notify/notify-settings.js';
import { systemdNotifier } from './systemd-notify/systemd-notifier.js';

/** EX_CONFIG: a problem retrying cannot fix; droplet.service does not restart on it. */
const EXIT_CONFIG = 78;

/** The parsed flags: the startup options (two under their flag names, the backend not yet checked) and the rest. */
interface CommandLine extends Omit<StartupOptions, 'bootBackend' | 'metricsIntervalSeconds'> {
  deviceRoot: string;
  bootBackend?: string;
  metricsInterval?: number;
  logLevel: LevelWithSilent;
  logFile?: string;
  commitTimeout: number;
  slotSize: number;
  trustDir?: string[];
  grubenv?: string;
  kernelCmdline?: string;
  osVersionFile?: string;
  slotA?: string;
  slotB?: string;
  fwPrintenv?: string;
  fwSetenv?: string;
  hookTimeout?: number;
  shutdownHookTimeout?: number;
  workloadUser: string;
  insecure?: boolean;
  caFile?: string;
  systemRoot: string;
}

async function main(): Promise<void> {
  // `droplet run-hook NAME`: what the image's hook units run (see hooks/run-hook-command.ts)
  if (process.argv[2] === 'run-hook') {
    const { runHookCommand } = await import('./hooks/run-hook-command.js');
    process.exit(await runHookCommand(process.argv.slice(3)));
  }
  // `droplet restore-config --device-root D`: at boot, before the agent (see config-apply/restore-config-command.ts)
  if (process.argv[2] === 'restore-config') {
    const { restoreConfigCommand } = await import('./config-apply/restore-config-command.js');
    process.exit(await restoreConfigCommand(process.argv.slice(3)));
  }
  // `droplet lock acquire|release|list`: update locks a workload holds (see locks/lock-command.ts)
  if (process.argv[2] === 'lock') {
    const { lockCommand } = await import('./locks/lock-command.js');
    process.exit(await lockCommand(process.argv.slice(3)));
  }
  // `droplet unlock-data`: opens the encrypted data partition at boot (see os/unlock/unlock-data-command.ts)
  if (process.argv[2] === 'unlock-data') {
    const { unlockDataCommand } = await import('./os/unlock/unlock-data-command.js');
    process.exit(await unlockDataCommand(process.argv.slice(3)));
  }
  // `droplet enroll-key --device-root D`: from a bearer credential to a key pair (see identity/enroll-key-command.ts)
  if (process.argv[2] === 'enroll-key') {
    const { enrollKeyCommand } = await import('./identity/enroll-key-command.js');
    process.exit(await enrollKeyCommand(process.argv.slice(3)));
  }
  const agentVersion = await readAgentVersion();
  const cli = parseCommandLine(agentVersion);
  const logger = createLogger(cli.logLevel, cli.logFile);
  const paths = agentPaths(cli.deviceRoot);
  const facts = systemFacts();
  const shutdown = new AbortController();
  const stopSignals = ['SIGTERM', 'SIGINT'] as const;
  // on, not once: a signal that arrives again while we stop (execa's signal-exit re-raises one) must not kill the agent
  for (const signal of stopSignals) process.on(signal, () => shutdown.abort());
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
  // ready as soon as the agent runs: registering and the on-boot hook may take long, and wait without blocking
  // the event loop, which is what the watchdog checks from now on
  const systemd = systemdNotifier({ env: process.env, pid: process.pid, logger });
  forgetNotifySettings(process.env);
  installFreezeHook(process.env);
  systemd.ready(`droplet ${agentVersion} starting`);
  shutdown.signal.addEventListener('abort', () => systemd.stopping());

  const managesOs = (cli.bootBackend ?? 'none') !== 'none';
  const registeredDeviceType =
    cli.deviceType ??
    (await defaultDeviceType(
      cli.bootBackend === undefined ? 'none' : parseBootBackend(cli.bootBackend, '--boot-backend'),
    ));
  const security: TransportSecurity = {
    insecure: cli.insecure === true,
    ...(cli.caFile === undefined ? {} : { ca: await readCaFile(cli.caFile) }),
  };
  // before registering: the provisioning token must not cross a network in the clear either
  if (cli.server !== undefined && cli.server !== '') transportTo(cli.server, security);
  let identity: DeviceIdentity;
  try {
    identity = await loadOrProvision(paths, startupOptions(cli), {
      register: (call) => registerDevice(security.ca === undefined ? call : { ...call, ca: security.ca }),
      deviceInfo: async () =>
        deviceInfoFromFacts(await facts.deviceFacts(), {
          managesOs,
          ...(registeredDeviceType === undefined ? {} : { deviceType: registeredDeviceType }),
        }).deviceInfo,
      logger,
      signal: shutdown.signal,
    });
  } catch (err) {
    if (shutdown.signal.aborted) return;
    throw err;
  }
  transportTo(identity.config.server, security);
  const bootBackend = identity.config.bootBackend ?? 'none';
  const deviceType = identity.config.deviceType ?? (await defaultDeviceType(bootBackend));
  if (deviceType !== undefined) identity = { ...identity, config: { ...identity.config, deviceType } };
  const settings = bootSettings(cli, bootBackend, identity.config.factoryVersion);
  const testHooks = osTestHooksFromEnv(process.env);
  const workloadUser = await resolveWorkloadUser(cli.workloadUser);
  const stopped = new Promise<'stop'>((resolve) => shutdown.signal.addEventListener('abort', () => resolve('stop')));

  // Each pass is one boot of the device; the simulated device (file backend) reboots in this same process.
  while (!shutdown.signal.aborted) {
    const device = await bootDevice(settings, logger);
    const droplet = await startDroplet({
      paths,
      identity,
      agentVersion,
      bootId: device.bootId,
      facts,
      logger,
      power: device.power,
      hooks: { timeoutsMs: hookTimeouts(cli) },
      workloadUser,
      security,
      systemRoot: cli.systemRoot,
      ...(cli.logFile === undefined ? {} : { logFile: cli.logFile }),
      ...(device.backend === undefined
        ? {}
        : {
            os: {
              ...osOptions(cli, device.backend, device.volatileDir, bootBackend, testHooks),
              ...(device.diskUnlock === undefined ? {} : { diskUnlock: device.diskUnlock }),
            },
          }),
    });
    systemd.status(`droplet ${agentVersion} running as ${identity.config.deviceName}`);
    const outcome = await Promise.race([stopped, device.powerEvent]);
    logger.info(
      outcome === 'stop' ? 'stopping' : `the simulated device ${outcome === 'reboot' ? 'reboots' : 'powers off'}`,
    );
    await droplet.stop();
    if (outcome !== 'reboot') break;
  }
  logger.flush();
}

function bootSettings(cli: CommandLine, bootBackend: BootBackend, factoryVersion: string | undefined): BootSettings {
  const settings: BootSettings = { bootBackend, deviceRoot: cli.deviceRoot, slotSizeBytes: cli.slotSize };
  if (factoryVersion !== undefined) settings.factoryVersion = factoryVersion;
  if (cli.grubenv !== undefined) settings.grubenvFile = cli.grubenv;
  if (cli.kernelCmdline !== undefined) settings.cmdlineFile = cli.kernelCmdline;
  if (cli.osVersionFile !== undefined) settings.osVersionFile = cli.osVersionFile;
  if (cli.slotA !== undefined || cli.slotB !== undefined) {
    settings.slotPaths = {
      A: cli.slotA ?? '/dev/disk/by-partlabel/root_a',
      B: cli.slotB ?? '/dev/disk/by-partlabel/root_b',
    };
  }
  if (cli.fwPrintenv !== undefined) settings.fwPrintenv = cli.fwPrintenv;
  if (cli.fwSetenv !== undefined) settings.fwSetenv = cli.fwSetenv;
  return settings;
}

function osOptions(
  cli: CommandLine,
  backend: BootBackendAdapter,
  volatileDir: string | undefined,
  bootBackend: BootBackend,
  testHooks: OsTestHooks,
): DropletOsOptions {
  const options: DropletOsOptions = {
    backend,
    trustDirs: cli.trustDir ?? defaultTrustDirs(cli.deviceRoot, bootBackend),
    commitTimeoutMs: cli.commitTimeout * 1000,
    neverCommit: testHooks.neverCommit,
  };
  const freeBytes = testHooks.freeBytes;
  if (freeBytes !== undefined) options.freeSpace = async () => freeBytes;
  const atBoundary = faultInjection(testHooks, volatileDir);
  if (atBoundary !== undefined) options.atBoundary = atBoundary;
  return options;
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
      new Option(
        '--insecure',
        'allow plain http:// and ws:// to a server that is not on loopback (warned at every connect)',
      ),
    )
    .addOption(
      new Option(
        '--ca-file <pem>',
        "trust only these CA certificates for the server's TLS certificate (link and image downloads)",
      ).env('DROPLET_CA_FILE'),
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
    .addOption(
      new Option('--commit-timeout <seconds>', 'a trial boot not committed this long reboots into the fallback slot')
        .argParser(positiveNumber)
        .default(300)
        .env('DROPLET_COMMIT_TIMEOUT'),
    )
    .addOption(
      new Option('--slot-size <bytes>', 'capacity of a simulated slot (file backend), e.g. 1G or 512M')
        .argParser(byteSize)
        .default(1024 ** 3, '1G')
        .env('DROPLET_SLOT_SIZE'),
    )
    .addOption(
      new Option(
        '--trust-dir <dir>',
        'a folder of trusted image-signing keys (*.pub); repeatable (default {device_root}/config/trust, and /etc/outpost/trusted-keys on grubenv/uboot)',
      ).argParser((dir: string, previous: string[] | undefined) => [...(previous ?? []), dir]),
    )
    .addOption(
      new Option('--grubenv <file>', 'the GRUB environment block (default /boot/efi/EFI/ab/grubenv)').env(
        'DROPLET_GRUBENV',
      ),
    )
    .addOption(new Option('--kernel-cmdline <file>', 'where to read ab.slot= and ab.trial= (default /proc/cmdline)'))
    .addOption(
      new Option('--os-version-file <file>', "the running root's OS version (default /etc/outpost/os-version)"),
    )
    .addOption(new Option('--slot-a <path>', 'slot A (default /dev/disk/by-partlabel/root_a)'))
    .addOption(new Option('--slot-b <path>', 'slot B (default /dev/disk/by-partlabel/root_b)'))
    .addOption(new Option('--fw-printenv <command>', 'U-Boot environment reader (default fw_printenv)'))
    .addOption(new Option('--fw-setenv <command>', 'U-Boot environment writer (default fw_setenv)'))
    .addOption(
      new Option('--hook-timeout <seconds>', 'on-boot and after-droplet hooks are killed after this (default 300)')
        .argParser(positiveNumber)
        .env('DROPLET_HOOK_TIMEOUT'),
    )
    .addOption(
      new Option('--shutdown-hook-timeout <seconds>', 'the on-shutdown hook is killed after this (default 90)')
        .argParser(positiveNumber)
        .env('DROPLET_SHUTDOWN_HOOK_TIMEOUT'),
    )
    .addOption(
      new Option(
        '--workload-user <name>',
        'the unprivileged user COMMAND health checks and pod services run as (where it does not exist, or the agent is not root, they run as the agent itself: condition WorkloadUser)',
      )
        .default(DEFAULT_WORKLOAD_USER)
        .env('DROPLET_WORKLOAD_USER'),
    )
    .addOption(
      new Option('--system-root <dir>', 'roots every file written for device configuration (network, ssh, ...)')
        .default('/')
        .env('DROPLET_SYSTEM_ROOT'),
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

function hookTimeouts(cli: CommandLine): Partial<HookTimeouts> {
  const timeouts: Partial<HookTimeouts> = {};
  if (cli.hookTimeout !== undefined) timeouts['on-boot'] = timeouts['after-droplet'] = cli.hookTimeout * 1000;
  if (cli.shutdownHookTimeout !== undefined) timeouts['on-shutdown'] = cli.shutdownHookTimeout * 1000;
  return timeouts;
}

function byteSize(value: string): number {
  const bytes = parseByteSize(value);
  if (bytes === undefined) throw new InvalidArgumentError('expected a size in bytes, e.g. 1073741824, 512M or 1G');
  return bytes;
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
