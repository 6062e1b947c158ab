import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Device } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { FleetTally, movesCounts } from './fleet-tally.js';

/** Where the server gauges read their values. */
export interface ServerFigures {
  watchStreams(): number;
  gatewaySessions(): number;
  statusWriteBatches(): number;
  artifactDownloads(): number;
}

export interface PrometheusMetrics {
  registry: Registry;
  /** the text exposition format */
  render(): Promise<{ contentType: string; body: string }>;
  stop(): void;
}

/**
 * The control plane's Prometheus metrics, in a registry of its own (not prom-client's global one): fleet
 * gauges kept from the devices' change feed (devices, connected, by OS version, by OSReady reason), the
 * server's own figures read at scrape time, and the process's default metrics.
 */
export function createPrometheusMetrics(devices: ResourceHandle<Device>, server: ServerFigures): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const tally = new FleetTally();
  for (const device of devices.list()) tally.change(null, device);
  const unsubscribe = devices.subscribe((change) => {
    if (movesCounts(change.changed)) tally.change(change.before, change.after);
  });

  const registers = [registry];
  new Gauge({
    name: 'outpost_devices',
    help: 'Devices registered',
    registers,
    collect() {
      this.set(tally.current.total);
    },
  });
  new Gauge({
    name: 'outpost_devices_connected',
    help: 'Devices whose agent is connected (Online)',
    registers,
    collect() {
      this.set(tally.current.connected);
    },
  });
  new Gauge({
    name: 'outpost_devices_by_os_version',
    help: 'Devices by the OS version they report running',
    labelNames: ['os_version'],
    registers,
    collect() {
      this.reset();
      for (const [version, count] of tally.current.byOsVersion) this.set({ os_version: version }, count);
    },
  });
  new Gauge({
    name: 'outpost_devices_by_os_ready_reason',
    help: 'Devices by the reason of their OSReady condition (upgrade progress)',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const [reason, count] of tally.current.byOsReadyReason) this.set({ reason }, count);
    },
  });
  new Gauge({
    name: 'outpost_watch_streams',
    help: 'Open watch streams of the REST API',
    registers,
    collect() {
      this.set(server.watchStreams());
    },
  });
  new Gauge({
    name: 'outpost_gateway_sessions',
    help: 'Agent connections the gateway holds',
    registers,
    collect() {
      this.set(server.gatewaySessions());
    },
  });
  counterOf(
    'outpost_status_write_batches_total',
    'Status write transactions of the gateway',
    server.statusWriteBatches,
  );
  counterOf('outpost_artifact_downloads_total', 'OS artifact downloads served', server.artifactDownloads);

  function counterOf(name: string, help: string, read: () => number): void {
    let reported = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const value = read();
        if (value > reported) this.inc(value - reported);
        reported = value;
      },
    });
  }

  return {
    registry,
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    stop: () => {
      unsubscribe();
      registry.clear();
    },
  };
}
