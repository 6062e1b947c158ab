import { readJsonFile, writeJsonFileAtomic } from '@outpost/shared';

export const BOOT_BACKENDS = ['grubenv', 'uboot', 'file', 'none'] as const;
export type BootBackend = (typeof BOOT_BACKENDS)[number];

/** {device_root}/config/droplet.json: written at provisioning, read at every start. */
export interface DropletConfig {
  /** the control plane, e.g. https://outpost.example.com */
  server: string;
  /** projects/{p}/regions/{r}/devices/{d} */
  deviceName: string;
  deviceType?: string;
  bootBackend?: BootBackend;
  /** the OS version the device shipped with */
  factoryVersion?: string;
  metricsIntervalSeconds?: number;
}

/** The config, or undefined when the file does not exist; throws ConfigError when it is unusable. */
export async function readDropletConfig(path: string): Promise<DropletConfig | undefined> {
  const value = await readJsonFile(path);
  return value === undefined ? undefined : parseDropletConfig(value, path);
}

export const writeDropletConfig = (path: string, config: DropletConfig): Promise<void> =>
  writeJsonFileAtomic(path, config, 0o644);

/** A configuration problem the agent cannot fix by retrying; main exits with EX_CONFIG. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseDropletConfig(value: unknown, source: string): DropletConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${source}: expected a JSON object`);
  }
  const fields = value as Record<string, unknown>;
  const text = (key: string, required: boolean): string | undefined => {
    const field = fields[key];
    if (field === undefined && !required) return undefined;
    if (typeof field !== 'string' || field === '')
      throw new ConfigError(`${source}: "${key}" must be a non-empty string`);
    return field;
  };
  const server = text('server', true) ?? '';
  checkServerUrl(server, source);
  const config: DropletConfig = { server, deviceName: text('deviceName', true) ?? '' };
  const deviceType = text('deviceType', false);
  if (deviceType !== undefined) config.deviceType = deviceType;
  const bootBackend = text('bootBackend', false);
  if (bootBackend !== undefined) config.bootBackend = parseBootBackend(bootBackend, source);
  const factoryVersion = text('factoryVersion', false);
  if (factoryVersion !== undefined) config.factoryVersion = factoryVersion;
  const interval = fields['metricsIntervalSeconds'];
  if (interval !== undefined) {
    if (typeof interval !== 'number' || !(interval > 0)) {
      throw new ConfigError(`${source}: "metricsIntervalSeconds" must be a positive number`);
    }
    config.metricsIntervalSeconds = interval;
  }
  return config;
}

export function parseBootBackend(value: string, source: string): BootBackend {
  const backend = BOOT_BACKENDS.find((b) => b === value);
  if (backend === undefined) {
    throw new ConfigError(`${source}: boot backend must be one of ${BOOT_BACKENDS.join(', ')}, not "${value}"`);
  }
  return backend;
}

export function checkServerUrl(server: string, source: string): void {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new ConfigError(`${source}: server "${server}" is not a URL`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new ConfigError(`${source}: server must be an http(s) URL, not "${server}"`);
  }
}
