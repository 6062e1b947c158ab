import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, DEVICE_ID_PATTERN, loadOrCreateFileDeviceKey, readFileDeviceKey } from '@outpost/shared';
import type { DeviceInfo, RegisterDeviceResponse } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { createBackoff } from '../retry/backoff.js';
import { writeCredential, readCredential } from './credential.js';
import { ConfigError, checkServerUrl, readDropletConfig, writeDropletConfig } from './droplet-config.js';
import type { BootBackend, DropletConfig } from './droplet-config.js';
import type { AgentPaths } from './paths.js';
import type { RegisterDeviceCall } from './register-device.js';

/** What the command line says about identity and settings (each optional). */
export interface StartupOptions {
  server?: string;
  provisioningToken?: string;
  deviceId?: string;
  project?: string;
  region?: string;
  deviceType?: string;
  bootBackend?: BootBackend;
  factoryVersion?: string;
  metricsIntervalSeconds?: number;
}

export interface DeviceIdentity {
  config: DropletConfig;
  /** the bearer credential, for a device without a key pair (in {device_root}/config/identity) */
  credential?: string;
  /** true when this start registered the device */
  provisioned: boolean;
}

export interface ProvisioningDeps {
  register: (call: RegisterDeviceCall) => Promise<RegisterDeviceResponse>;
  /** what the device tells the server about itself at registration */
  deviceInfo: () => Promise<DeviceInfo | undefined>;
  logger: Logger;
  /** stops retrying an unreachable server */
  signal?: AbortSignal;
}

/** Server errors worth retrying: the network, or a server that is down or busy. */
const RETRYABLE: ReadonlySet<string> = new Set(['UNAVAILABLE', 'INTERNAL', 'RESOURCE_EXHAUSTED']);

/**
 * The device's config and credential or key pair: read from {device_root}/config when the device is provisioned,
 * otherwise obtained by registering with a provisioning token, with a key pair made for it (then written
 * atomically). Throws ConfigError when neither is possible.
 */
export async function loadOrProvision(
  paths: AgentPaths,
  options: StartupOptions,
  deps: ProvisioningDeps,
): Promise<DeviceIdentity> {
  const [stored, credential, key] = await Promise.all([
    readDropletConfig(paths.configFile),
    readCredential(paths.credentialFile),
    readFileDeviceKey(paths.identityDir),
  ]);
  if (stored !== undefined && key !== undefined) {
    return { config: withOverrides(stored, options), provisioned: false };
  }
  if (stored !== undefined && credential !== undefined) {
    return { config: withOverrides(stored, options), credential, provisioned: false };
  }
  if (options.provisioningToken === undefined) {
    throw new ConfigError(
      `this device is not provisioned (${credential === undefined ? paths.credentialFile : paths.configFile} is missing) ` +
        'and no provisioning token was given: run droplet once with --server <url> --provisioning-token <token> ' +
        '--project <project> --region <region> --device-id <id>',
    );
  }
  const call = registrationCall(options, options.provisioningToken);
  // the key pair first: the server stores only its public half, and the device never holds a bearer credential
  call.publicKey = await (await loadOrCreateFileDeviceKey(paths.identityDir)).publicKey();
  const deviceInfo = await deps.deviceInfo().catch(() => undefined);
  if (deviceInfo !== undefined) call.deviceInfo = deviceInfo;

  const response = await registerWithRetry(call, deps);
  const config = withOverrides({ server: call.server, deviceName: response.device.name }, options);
  // The credential first: a config without a credential (or key) still counts as "not provisioned". A server
  // that does not know key pairs answers with a credential.
  if (response.credential !== undefined) {
    await writeCredential(paths.credentialFile, response.credential);
    // that server did not take the key: it must not be offered to it
    await rm(paths.identityDir, { recursive: true, force: true });
  }
  await writeDropletConfig(paths.configFile, config);
  deps.logger.info({ deviceName: config.deviceName }, 'device registered');
  return {
    config,
    ...(response.credential === undefined ? {} : { credential: response.credential }),
    provisioned: true,
  };
}

function registrationCall(options: StartupOptions, provisioningToken: string): RegisterDeviceCall {
  const required = {
    server: options.server,
    project: options.project,
    region: options.region,
    deviceId: options.deviceId,
  };
  const missing = Object.entries(required)
    .filter(([, value]) => value === undefined || value === '')
    .map(([key]) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  if (missing.length > 0)
    throw new ConfigError(`registering with a provisioning token also needs ${missing.join(', ')}`);
  const { server = '', project = '', region = '', deviceId = '' } = required;
  checkServerUrl(server, '--server');
  if (!DEVICE_ID_PATTERN.test(deviceId)) {
    throw new ConfigError(`--device-id "${deviceId}" is not a device id ([a-z][a-z0-9-]{0,28}[a-z0-9])`);
  }
  return { server, project, region, deviceId, provisioningToken };
}

async function registerWithRetry(call: RegisterDeviceCall, deps: ProvisioningDeps): Promise<RegisterDeviceResponse> {
  const backoff = createBackoff({ baseMs: 1_000, capMs: 60_000 });
  for (;;) {
    try {
      return await deps.register(call);
    } catch (err) {
      const apiError = err instanceof ApiError ? err : new ApiError('INTERNAL', String(err));
      if (!RETRYABLE.has(apiError.status)) {
        throw new ConfigError(`the server refused to register the device: ${apiError.status}: ${apiError.message}`);
      }
      const delayMs = backoff.next();
      deps.logger.warn({ err: apiError.message, retryInMs: delayMs }, 'device registration failed; retrying');
      await sleep(delayMs, undefined, deps.signal === undefined ? {} : { signal: deps.signal });
    }
  }
}

/** Settings given on the command line win over the stored ones, for this run. */
function withOverrides(config: DropletConfig, options: StartupOptions): DropletConfig {
  const merged: DropletConfig = { ...config };
  if (options.server !== undefined) merged.server = options.server;
  if (options.deviceType !== undefined) merged.deviceType = options.deviceType;
  if (options.bootBackend !== undefined) merged.bootBackend = options.bootBackend;
  if (options.factoryVersion !== undefined) merged.factoryVersion = options.factoryVersion;
  if (options.metricsIntervalSeconds !== undefined) merged.metricsIntervalSeconds = options.metricsIntervalSeconds;
  return merged;
}
