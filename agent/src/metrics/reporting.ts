import { createTask } from 'node-cron';
import type { ReportedStatus } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { addressesOf, deviceInfoFromFacts, managedFeatures } from './device-info.js';
import type { DeviceIdentityFacts } from './device-info.js';
import { readInventoryFingerprint } from './inventory/inventory-fingerprint.js';
import type { InventoryDeviceInfo } from './inventory/inventory-from-system-information.js';
import { metricsSampleFromFacts } from './metrics-sample.js';
import type { StatusLink, StatusReporter } from './status-reporter.js';
import type { SystemFactsSource } from './system-facts.js';

export interface ReportingLink extends StatusLink {
  onConnected(listener: () => void): () => void;
}

export interface ReportingOptions {
  link: ReportingLink;
  reporter: StatusReporter;
  facts: SystemFactsSource;
  identity: DeviceIdentityFacts;
  /** default 60 s */
  metricsIntervalMs?: number;
  /**
   * When the inventory is read again besides at start and when the fingerprint changes: a cron expression
   * (node-cron, the device's local time). Default every 6 hours. It is sent only when it changed.
   */
  inventorySchedule?: string;
  /** what tells, at each metrics interval, that the inventory may have changed (default readInventoryFingerprint) */
  fingerprint?: () => Promise<string>;
  logger: Logger;
}

export const DEFAULT_INVENTORY_SCHEDULE = '0 */6 * * *';

export interface Reporting {
  /** settles once the first reading of device info is reported (or has failed) */
  firstDeviceInfo: Promise<void>;
  /** reads the inventory again (one reading at a time: a call during a reading waits for that one) */
  refreshDeviceInfo(): Promise<void>;
  /** reads the inventory again if the fingerprint changed since the last reading */
  checkForChanges(): Promise<void>;
  sendMetrics(): Promise<void>;
  stop(): void;
}

/**
 * Keeps device info current in the status reporter and sends a metrics sample every interval while
 * connected (samples are dropped, not queued, while offline), plus one right after each connect.
 *
 * Device info is the inventory (facts.inventory: systeminformation in a short-lived collector process), read
 * at start, on the schedule, and whenever the fingerprint (mounts, block devices, interfaces and addresses)
 * differs at a metrics interval. At start the quick facts of deviceFacts are reported first, so the first
 * status carries the device's architecture and managed features even before the collector answers; they are
 * also what is reported while no inventory could be read yet. A failed reading keeps the last inventory.
 */
export function startReporting(options: ReportingOptions): Reporting {
  const { link, reporter, facts, identity, logger } = options;
  const fingerprint = options.fingerprint ?? (() => readInventoryFingerprint());
  let sampling = false;
  let inventoryReported = false;
  let lastFingerprint: string | undefined;
  let reading: Promise<void> | undefined;
  let stopped = false;

  const reportQuickFacts = async (): Promise<void> => {
    try {
      reporter.report(deviceInfoFromFacts(await facts.deviceFacts(), identity));
    } catch (err) {
      logger.warn({ err }, 'cannot read device info');
    }
  };

  const readInventory = async (): Promise<void> => {
    // taken as the reading starts: a change while it runs is seen at the next interval
    const fingerprintNow = fingerprint().catch(() => undefined);
    if (stopped) return;
    try {
      if (facts.inventory === undefined) return await reportQuickFacts();
      try {
        reporter.report(withIdentity(await facts.inventory(), identity));
        inventoryReported = true;
      } catch (err) {
        logger.warn({ err }, 'cannot read the inventory with systeminformation');
        if (!inventoryReported) await reportQuickFacts();
      }
    } finally {
      lastFingerprint = await fingerprintNow;
    }
  };

  const refreshDeviceInfo = (): Promise<void> =>
    (reading ??= readInventory().finally(() => {
      reading = undefined;
    }));

  const checkForChanges = async (): Promise<void> => {
    if (reading !== undefined || stopped) return;
    const current = await fingerprint().catch(() => undefined);
    if (current !== lastFingerprint) {
      logger.info('the device changed (mounts, disks or interfaces): reading the inventory again');
      await refreshDeviceInfo();
    }
  };

  const sendMetrics = async (): Promise<void> => {
    if (!link.connected || sampling) return;
    sampling = true;
    try {
      const sample = metricsSampleFromFacts(await facts.usageFacts(), new Date());
      link.send({ type: 'metrics', ...sample });
    } catch (err) {
      logger.warn({ err }, 'cannot read metrics');
    } finally {
      sampling = false;
    }
  };

  const unsubscribe = link.onConnected(() => {
    reporter.resend();
    void sendMetrics();
  });
  const metricsTimer = setInterval(() => {
    void sendMetrics();
    void checkForChanges();
  }, options.metricsIntervalMs ?? 60_000);
  const inventoryTask = createTask(options.inventorySchedule ?? DEFAULT_INVENTORY_SCHEDULE, () => refreshDeviceInfo(), {
    name: 'inventory refresh',
    noOverlap: true,
    logger: cronLogger(logger),
  });
  void inventoryTask.start();
  const firstDeviceInfo = facts.inventory === undefined ? refreshDeviceInfo() : reportQuickFacts();
  if (facts.inventory !== undefined) void firstDeviceInfo.then(refreshDeviceInfo);

  return {
    firstDeviceInfo,
    refreshDeviceInfo,
    checkForChanges,
    sendMetrics,
    stop() {
      // a reading already started still reports; none starts from now on
      stopped = true;
      unsubscribe();
      clearInterval(metricsTimer);
      void inventoryTask.destroy();
      reporter.stop();
    },
  };
}

function withIdentity(inventory: InventoryDeviceInfo, identity: DeviceIdentityFacts): ReportedStatus {
  const deviceInfo: ReportedStatus['deviceInfo'] = {
    ...inventory,
    managedFeatures: managedFeatures(identity.managesOs),
  };
  if (identity.deviceType !== undefined) deviceInfo.deviceType = identity.deviceType;
  return { deviceInfo, addresses: addressesOf(inventory.networkInterfaces ?? {}) };
}

/** node-cron's messages through the agent's logger. */
function cronLogger(logger: Logger) {
  return {
    info: (message: string) => logger.info(message),
    warn: (message: string) => logger.warn(message),
    error: (message: string | Error, err?: Error) => logger.error({ err: err ?? message }, 'inventory schedule'),
    debug: (message: string | Error) => logger.debug(String(message)),
  };
}
