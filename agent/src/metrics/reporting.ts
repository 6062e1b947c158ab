import type { Logger } from '../logging/logger.js';
import { deviceInfoFromFacts } from './device-info.js';
import type { DeviceIdentityFacts } from './device-info.js';
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
  /** how often device info (interfaces, disks, ...) is re-read; sent only when it changed. Default 5 min */
  deviceInfoIntervalMs?: number;
  logger: Logger;
}

export interface Reporting {
  /** settles once the first reading of device info is reported (or has failed) */
  firstDeviceInfo: Promise<void>;
  refreshDeviceInfo(): Promise<void>;
  sendMetrics(): Promise<void>;
  stop(): void;
}

/**
 * Keeps device info current in the status reporter and sends a metrics sample every interval while
 * connected (samples are dropped, not queued, while offline), plus one right after each connect.
 */
export function startReporting(options: ReportingOptions): Reporting {
  const { link, reporter, facts, identity, logger } = options;
  let sampling = false;

  const refreshDeviceInfo = async (): Promise<void> => {
    try {
      reporter.report(deviceInfoFromFacts(await facts.deviceFacts(), identity));
    } catch (err) {
      logger.warn({ err }, 'cannot read device info');
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
  const metricsTimer = setInterval(() => void sendMetrics(), options.metricsIntervalMs ?? 60_000);
  const deviceInfoTimer = setInterval(() => void refreshDeviceInfo(), options.deviceInfoIntervalMs ?? 5 * 60_000);
  const firstDeviceInfo = refreshDeviceInfo();

  return {
    firstDeviceInfo,
    refreshDeviceInfo,
    sendMetrics,
    stop() {
      unsubscribe();
      clearInterval(metricsTimer);
      clearInterval(deviceInfoTimer);
      reporter.stop();
    },
  };
}
