import { setTimeout as sleep } from 'node:timers/promises';
import type { DesiredDevice } from '@outpost/shared';
import { desiredDeviceSchema, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import type { DeviceIdentity } from './config/load-or-provision.js';
import { deviceTokens, linkCredentials } from './identity/device-tokens.js';
import type { AgentPaths } from './config/paths.js';
import type { TransportSecurity } from './config/transport-security.js';
import { AgentLink } from './link/agent-link.js';
import type { AgentLinkOptions } from './link/agent-link.js';
import type { Logger } from './logging/logger.js';
import { startReporting } from './metrics/reporting.js';
import type { Reporting } from './metrics/reporting.js';
import { StatusReporter } from './metrics/status-reporter.js';
import type { SystemFactsSource } from './metrics/system-facts.js';
import { agentStateStore } from './state/agent-state.js';
import type { AgentStateStore } from './state/agent-state.js';
import type { BootBackend } from './os/boot/boot-backend.js';
import type { FreeSpace } from './os/download/free-space.js';
import { UNSUPPORTED } from './os/os-planner.js';
import { osProgressStore } from './os/os-progress.js';
import { OsUpdater } from './os/os-updater.js';
import type { DiskUnlockAdapter } from './os/unlock/unlock-adapter.js';
import { DiskUnlockKeeper, RECOVERY_KEY_FILE_NAME } from './os/unlock/unlock-keeper.js';
import { UNLOCK_UNSUPPORTED } from './os/unlock/unlock-planner.js';
import type { OsUpdaterOptions } from './os/os-updater.js';
import type { StepBoundary } from './os/step-boundaries.js';
import type { Power, ShutdownHooks } from './power/power.js';
import { agentHooks } from './hooks/agent-hooks.js';
import type { AgentHooks } from './hooks/agent-hooks.js';
import type { HookTimeouts } from './hooks/hook-timeouts.js';
import { HealthMonitor } from './health/health-monitor.js';
import { probesFor } from './health/probes/run-probe.js';
import { systemctlPower } from './power/systemctl-power.js';
import { registerPowerCommands } from './power/power-commands.js';
import { UpdateLocks, locksDir } from './locks/update-locks.js';
import { CronJobs } from './schedule/cron-jobs.js';
import { HOUSEKEEPING_SCHEDULE, pruneDeviceData } from './schedule/housekeeping.js';
import { startWorkloads } from './workloads/start-workloads.js';
import type { WorkloadOptions, Workloads } from './workloads/start-workloads.js';
import { AGENT_ITSELF } from './workloads/workload-user.js';
import type { WorkloadUser } from './workloads/workload-user.js';
import { startChannelServices } from './transfer/channel-services.js';
import { removePartFilesLeftBehind } from './transfer/part-files.js';
import { channelServicesOnDemand } from './channel-services-on-demand.js';
import { execFileCommands } from './config-apply/command-runner.js';
import type { SystemCommands } from './config-apply/command-runner.js';
import { NetworkConfigurator } from './config-apply/network/network-configurator.js';
import { LoggingConfigurator } from './config-apply/logging/logging-configurator.js';
import { ProxyConfigurator } from './config-apply/proxy/proxy-configurator.js';
import { connectVia } from './config-apply/proxy/proxy-route.js';
import { SshConfigurator } from './config-apply/ssh/ssh-configurator.js';
import type { LinkHealth } from './config-apply/link-health.js';
import { reporterSink } from './config-apply/status-sink.js';
import { systemRoot } from './config-apply/system-root.js';

/** The longest the first connection waits for the first reading of device info. */
const DEVICE_INFO_WAIT_MS = 2_000;

export interface DropletOptions {
  paths: AgentPaths;
  identity: DeviceIdentity;
  agentVersion: string;
  bootId: string;
  facts: SystemFactsSource;
  logger: Logger;
  /** --insecure and --ca-file: how the link and the image downloads reach the server */
  security?: TransportSecurity;
  /** link tuning (tests shorten the timers) */
  link?: Partial<Omit<AgentLinkOptions, 'server' | 'credential' | 'hello' | 'logger'>>;
  /** reboot and power-off; default systemctl */
  power?: Power;
  /** run before every agent-initiated reboot or power-off; default the on-shutdown hook */
  runShutdownHooks?: ShutdownHooks;
  /** hook timeouts (default 5 min, on-shutdown 90 s) and the SIGTERM-to-SIGKILL grace */
  hooks?: { timeoutsMs?: Partial<HookTimeouts>; killGraceMs?: number };
  /** OS management (A/B upgrades); absent with the `none` boot backend: OSReady=True/Unsupported */
  os?: DropletOsOptions;
  /** pod runtimes and restart timers (tests shorten them) */
  workloads?: WorkloadOptions;
  /** whom COMMAND checks and pod services run as (--workload-user); default the agent itself */
  workloadUser?: WorkloadUser;
  /** the agent's log file, for the debug bundle */
  logFile?: string;
  /** roots every file written for device configuration (--system-root; default `/`) */
  systemRoot?: string;
  /** how configuration runs netplan, networkctl, systemctl, sshd (default: node's execFile) */
  systemCommands?: SystemCommands;
}

export interface DropletOsOptions {
  backend: BootBackend;
  /** folders whose `*.pub` files are the trusted image-signing keys */
  trustDirs: string[];
  commitTimeoutMs: number;
  /** test hook OUTPOST_TEST_NEVER_COMMIT */
  neverCommit?: boolean;
  freeSpace?: FreeSpace;
  /** fault-injection seam (OUTPOST_TEST_EXIT_AT / OUTPOST_TEST_POWER_CUT_AT) */
  atBoundary?: (boundary: StepBoundary) => void | Promise<void>;
  /** timers (tests shorten them) */
  tuning?: Pick<OsUpdaterOptions, 'progressIntervalMs' | 'idleRecheckMs' | 'download' | 'errorBackoff'>;
  /** the TPM binding of the encrypted data partition (DiskUnlock); absent when it is not encrypted */
  diskUnlock?: DiskUnlockAdapter;
}

/** A running agent; later features register on `link` (spec consumers, commands) and `reporter` (conditions). */
export interface Droplet {
  link: AgentLink;
  reporter: StatusReporter;
  reporting: Reporting;
  state: AgentStateStore;
  power: Power;
  runShutdownHooks: ShutdownHooks;
  hooks: AgentHooks;
  health: HealthMonitor;
  /** absent with the `none` boot backend */
  osUpdater: OsUpdater | undefined;
  workloads: Workloads;
  stop(): Promise<void>;
}

/** Wires the link, the status reporter and the reporting loops for one provisioned device, and connects. */
export async function startDroplet(options: DropletOptions): Promise<Droplet> {
  const { paths, identity, logger } = options;
  const { config } = identity;
  const state = agentStateStore(paths.stateFile);
  const previous = await state.read();
  const osVersion = previous.osVersion ?? config.factoryVersion;
  if (previous.lastBootId !== undefined && previous.lastBootId !== options.bootId) logger.info('the device rebooted');
  await state.update({
    lastBootId: options.bootId,
    lastStartTime: new Date().toISOString(),
    ...(osVersion === undefined ? {} : { osVersion }),
  });

  const deviceToken = deviceTokens({
    server: config.server,
    deviceName: config.deviceName,
    identityDir: paths.identityDir,
    credentialFile: paths.credentialFile,
    ...(identity.credential === undefined ? {} : { fallbackCredential: identity.credential }),
    ...(options.security?.ca === undefined ? {} : { ca: options.security.ca }),
    // the device's proxy (spec.proxyConfig), as the link's attempts go
    connect: (target) => connectThroughProxy(target),
  });
  const link = new AgentLink({
    ...options.link,
    server: config.server,
    ...(options.security === undefined ? {} : { security: options.security }),
    proxy: (target) => proxy.chooser(target),
    // the key pair (it signs the server's challenge on the link), or the credential file re-read, at every attempt
    credential: linkCredentials({
      deviceName: config.deviceName,
      identityDir: paths.identityDir,
      credentialFile: paths.credentialFile,
      ...(identity.credential === undefined ? {} : { fallbackCredential: identity.credential }),
    }),
    hello: () => ({ agentVersion: options.agentVersion, bootId: options.bootId }),
    logger,
  });
  const reporter = new StatusReporter({ link });
  // how the proxy and network parts see the link (a change is kept only if the link comes back)
  const linkHealth: LinkHealth = {
    isConnected: () => link.connected,
    onWelcome: (listener) => link.onConnected(() => listener()),
    reconnect: () => link.reconnect(),
  };
  // before the link starts: its first attempt goes through the proxy in force (a trial a restart cut is ended)
  const proxy: ProxyConfigurator = new ProxyConfigurator({
    deviceRoot: paths.deviceRoot,
    link: linkHealth,
    sink: reporterSink(reporter),
    logger,
  });
  await proxy.start().catch((err: unknown) => logger.error({ err }, 'cannot start the proxy configuration'));
  const connectThroughProxy = connectVia(proxy.chooser);
  const power = options.power ?? systemctlPower();
  const updateLocks = new UpdateLocks(locksDir(paths.deviceRoot));
  const cronJobs = new CronJobs(logger);
  const prune = async (): Promise<void> => {
    await pruneDeviceData(paths.dataDir, logger);
  };
  cronJobs.set({ name: 'housekeeping', schedule: HOUSEKEEPING_SCHEDULE, run: prune });
  void prune().catch((err: unknown) => logger.warn({ err }, 'cannot prune old logs and temporary files'));
  const hooks = agentHooks({
    deviceRoot: paths.deviceRoot,
    bootId: options.bootId,
    logger,
    reporter,
    ...options.hooks,
  });
  await hooks.runOnBootIfDue();
  const runShutdownHooks = options.runShutdownHooks ?? hooks.runShutdownHooks;
  const lastDesired = await readDesiredDevice(paths.desiredDeviceFile, logger);
  const workloadUser = options.workloadUser ?? AGENT_ITSELF;
  reporter.setCondition(workloadUser.condition);
  if (workloadUser.condition.status !== 'True') logger.warn(workloadUser.condition.message);
  const health = new HealthMonitor({
    reporter,
    logger,
    probe: probesFor(workloadUser),
    onConditionChange: () => osUpdater?.healthChanged(),
  });
  const osUpdater =
    options.os === undefined
      ? undefined
      : new OsUpdater({
          ...options.os.tuning,
          backend: options.os.backend,
          store: osProgressStore(paths.osProgressFile, (problem) =>
            logger.error({ problem }, 'the OS update progress is unreadable; starting afresh'),
          ),
          power,
          runShutdownHooks,
          link,
          reporter,
          server: config.server,
          ...(options.security?.ca === undefined ? {} : { ca: options.security.ca }),
          connect: connectThroughProxy,
          credential: deviceToken,
          trustDirs: options.os.trustDirs,
          deviceType: config.deviceType,
          commitTimeoutMs: options.os.commitTimeoutMs,
          neverCommit: options.os.neverCommit ?? false,
          logger,
          onCommittedVersion: async (version) => {
            await state.update({ osVersion: version });
          },
          ...(options.os.freeSpace === undefined ? {} : { freeSpace: options.os.freeSpace }),
          ...(options.os.atBoundary === undefined ? {} : { atBoundary: options.os.atBoundary }),
          ...optionalDesired(lastDesired),
          updateLocks,
          cronJobs,
          ...(options.os.diskUnlock === undefined
            ? {}
            : {
                diskUnlock: new DiskUnlockKeeper({
                  adapter: options.os.diskUnlock,
                  reporter,
                  logger,
                  recoveryKeyFile: `${paths.configDir}/${RECOVERY_KEY_FILE_NAME}`,
                }),
              }),
        });
  // the last checks, before the first plan: a trial boot must not commit before their verdicts
  health.apply(lastDesired?.healthChecks);
  if (osUpdater !== undefined) {
    await osUpdater.prime();
  } else {
    if (osVersion !== undefined) reporter.report({ deviceInfo: { osVersion } });
    reporter.setCondition({ type: 'OSReady', ...UNSUPPORTED });
    reporter.setCondition({ type: 'DiskUnlock', ...UNLOCK_UNSUPPORTED });
  }

  // before the link starts: a trial a restart interrupted is restored and reported first
  const systemParts = {
    root: systemRoot(options.systemRoot),
    deviceRoot: paths.deviceRoot,
    commands: options.systemCommands ?? execFileCommands(),
    sink: reporterSink(reporter),
    logger,
  };
  const network = new NetworkConfigurator({
    ...systemParts,
    link: linkHealth,
  });
  await network.start().catch((err: unknown) => logger.error({ err }, 'cannot start the network configuration'));
  const ssh = new SshConfigurator(systemParts);
  await ssh.start().catch((err: unknown) => logger.error({ err }, 'cannot start the SSH configuration'));
  const logging = new LoggingConfigurator(systemParts);
  await logging.start().catch((err: unknown) => logger.error({ err }, 'cannot start the logging configuration'));

  const workloads = startWorkloads(link, paths.dataDir, lastDesired?.pods, logger, {
    ...options.workloads,
    workloadUser,
    deviceEnv: () => proxy.environment(),
  });
  registerPowerCommands(link, { power, runShutdownHooks, logger, updateLocks });
  await removePartFilesLeftBehind(paths.dataDir, logger);
  const channels = startChannelServices({
    link,
    logger,
    services: channelServicesOnDemand({
      paths,
      agentVersion: options.agentVersion,
      bootId: options.bootId,
      deviceName: config.deviceName,
      facts: options.facts,
      workloads: workloads.manager,
      logger,
      journalUnit: 'droplet.service',
      ...(options.logFile === undefined ? {} : { logFile: options.logFile }),
    }),
  });

  // specs are written in the order they arrive: two writes in flight could otherwise land out of order
  let persisted: Promise<void> = Promise.resolve();
  link.addSpecConsumer(async (device: DesiredDevice) => {
    osUpdater?.setDesired(device);
    workloads.manager
      .setDesired(device.pods)
      .catch((err: unknown) => logger.error({ err }, 'cannot converge the pods'));
    health.apply(device.healthChecks);
    // its failures are logged and reported by the configurator itself
    network.setDesired(device.spec, device.metadata.generation).catch(() => undefined);
    for (const part of [proxy, ssh, logging]) part.setDesired(device.spec, device.metadata.generation).catch(() => {});
    persisted = persisted.catch(() => {}).then(() => writeJsonFileAtomic(paths.desiredDeviceFile, device));
    await persisted;
    logger.info(
      { generation: device.metadata.generation, osVersion: device.spec.osVersion },
      'received the device spec',
    );
  });

  const reporting = startReporting({
    link,
    reporter,
    facts: options.facts,
    identity: {
      managesOs: (config.bootBackend ?? 'none') !== 'none',
      ...(config.deviceType === undefined ? {} : { deviceType: config.deviceType }),
    },
    metricsIntervalMs: (config.metricsIntervalSeconds ?? 60) * 1000,
    logger,
  });
  await hooks.start();
  // the first status after connecting should carry the device info (the control plane checks OS version writes
  // against its managedFeatures): the first reading takes milliseconds; it never holds the connection up long
  await Promise.race([reporting.firstDeviceInfo, sleep(DEVICE_INFO_WAIT_MS, undefined, { ref: false })]);
  link.start();
  osUpdater?.start();
  logger.info(
    { deviceName: config.deviceName, server: config.server, agentVersion: options.agentVersion },
    'droplet started',
  );

  return {
    link,
    reporter,
    reporting,
    state,
    power,
    runShutdownHooks,
    hooks,
    health,
    osUpdater,
    workloads,
    async stop() {
      cronJobs.stop();
      network.stop();
      proxy.stop();
      await channels.stop();
      await workloads.stop();
      await osUpdater?.stop();
      reporting.stop();
      health.stop();
      await hooks.stop();
      await link.stop();
    },
  };
}

/** The last desired device received, or undefined (none yet, or unreadable). */
async function readDesiredDevice(path: string, logger: Logger): Promise<DesiredDevice | undefined> {
  try {
    const parsed = desiredDeviceSchema.safeParse(await readJsonFile(path));
    return parsed.success ? parsed.data : undefined;
  } catch (err) {
    logger.warn({ err }, 'cannot read the last desired device');
    return undefined;
  }
}

const optionalDesired = (device: DesiredDevice | undefined): { initialDesired?: DesiredDevice } =>
  device === undefined ? {} : { initialDesired: device };
