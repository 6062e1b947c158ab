import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import {
  addressSchema,
  conditionSchema,
  configurationStatusSchema,
  deviceInfoSchema,
  diskUnlockStatusSchema,
  hookRunSchema,
  maintenanceStatusSchema,
  metricsSampleSchema,
  osUpdateStatusSchema,
} from '../../protocol/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { withOsReadyReason } from './os-ready-reason.js';
import { withFailingHealthCheckCount } from './failing-health-checks.js';
import { remoteAccessSchema } from '../../protocol/remote-access.js';
import { updatePolicySchema } from './update-policy.js';

export const CONNECTION_STATUSES = ['CONNECTION_STATUS_UNSPECIFIED', 'CONNECTED', 'DISCONNECTED'] as const;

const sshAuthorizedKeySchema = z.object({
  sshaKey: z.string().min(1),
  certAuthority: z.boolean().optional(),
  command: z.string().optional(),
  environment: z.string().optional(),
  from: z.string().optional(),
  noAgentForwarding: z.boolean().optional(),
  noPortForwarding: z.boolean().optional(),
  noPty: z.boolean().optional(),
  noUserRc: z.boolean().optional(),
  noX11Forwarding: z.boolean().optional(),
  permitopen: z.string().optional(),
  principals: z.string().optional(),
  tunnel: z.string().optional(),
  restrict: z.boolean().optional(),
});

/** Log levels of the droplet agent (pino's), lowest verbosity last. */
export const AGENT_LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// Types only here: what each value means (keys parsed, addresses, durations, YAML) is checked by
// checkDeviceConfig (shared/src/netconfig) when the value is written, so a stored device never blocks a write.
export const sshConfigSchema = z.object({
  disableSshServer: z.boolean().optional(),
  disableSshPassword: z.boolean().optional(),
  disableSshAuthkey: z.boolean().optional(),
  sshAuthorized: z.array(sshAuthorizedKeySchema).optional(),
  ipAllowList: z.array(z.string()).optional(),
  ipDenyList: z.array(z.string()).optional(),
  /** how long a rejected client stays rejected, e.g. "300s" */
  rejectPeriod: z.string().optional(),
  /** the port sshd listens on (default 22) */
  port: z.int().min(1).max(65_535).optional(),
  /** true: a failed network change is kept rather than rolled back (same as spec.disableNetworkConfigFallback) */
  disableNetworkConfigFallback: z.boolean().optional(),
});

/** What the user asks of a device (reference.md §1 Device.Spec, lowerCamel). */
export const deviceSpecSchema = z.object({
  /** desired OS version; the device converges on it (spec 000 "States and transitions") */
  osVersion: z.string().min(1).optional(),
  /**
   * netplan YAML applied on the device: kept only if the control-plane link comes back within
   * networkConfigGraceSeconds, else the last known-good configuration is restored (unless
   * disableNetworkConfigFallback)
   */
  netplanYamlConfig: z.string().optional(),
  netplanApiConfigMode: z.enum(['MERGE', 'REPLACE']).optional(),
  disableNetworkConfigFallback: z.boolean().optional(),
  /** how long a network change may go without the link coming back before the agent restores the known-good one */
  networkConfigGraceSeconds: z.int().min(10).max(3600).optional(),
  sshConfig: sshConfigSchema.optional(),
  proxyConfig: z
    .object({
      httpProxy: z.string().optional(),
      httpsProxy: z.string().optional(),
      noProxy: z.string().optional(),
      proxyInterfaces: z.array(z.string()).optional(),
    })
    .optional(),
  loggingConfig: z
    .object({
      priority: z.number().int().min(0).max(7).optional(),
      units: z.array(z.string()).optional(),
      enableJournalExport: z.boolean().optional(),
      /** the droplet agent's own log level */
      agentLogLevel: z.enum(AGENT_LOG_LEVELS).optional(),
      /** journald's SystemMaxUse= (persistent journal size), e.g. "200M" */
      journalSystemMaxUse: z.string().optional(),
      /** journald's RuntimeMaxUse= (volatile journal size), e.g. "32M" */
      journalRuntimeMaxUse: z.string().optional(),
    })
    .optional(),
  location: z.object({ address: z.string().optional(), placement: z.string().optional() }).optional(),
  disableDeviceDiscovery: z.boolean().optional(),
  /** health checks applied to this device by name (besides those selecting it by label) */
  healthChecks: z.array(z.string()).optional(),
  /** maintenance windows: when an upgrade may switch slots and reboot (checked by checkUpdatePolicy when written) */
  updatePolicy: updatePolicySchema.optional(),
  /** the remote terminal and port forwarding: whether allowed, the forward targets, the shell's user (issue 21) */
  remoteAccess: remoteAccessSchema.optional(),
});

/** What the device and the control plane report (output only). */
export const deviceStatusSchema = z.object({
  addresses: z.array(addressSchema).optional(),
  conditions: z.array(conditionSchema).optional(),
  /** the reason of the OSReady condition, kept by the control plane so that filters can find it */
  osReadyReason: z.string().optional(),
  /** how many of the device's `Healthy/<id>` conditions are False (absent without any), kept so filters find them */
  failingHealthCheckCount: z.int().min(0).optional(),
  deviceInfo: deviceInfoSchema.partial().optional(),
  connectionStatus: z.enum(CONNECTION_STATUSES).optional(),
  connectionStatusChangeTime: z.string().optional(),
  /** the latest metrics sample */
  metrics: metricsSampleSchema.optional(),
  /** the device's A/B slots and boot state */
  osUpdate: osUpdateStatusSchema.optional(),
  /** the latest run of each of the device's hooks */
  hooks: z.array(hookRunSchema).optional(),
  /** version of the agent on the device and the boot it runs in */
  agent: z.object({ version: z.string(), bootId: z.string() }).partial().optional(),
  /** each configuration part the agent applies (network, ssh, proxy, logging): generations, source, last error */
  configuration: configurationStatusSchema.optional(),
  /** the maintenance window (open now, next start) and the update locks held on the device */
  maintenance: maintenanceStatusSchema.optional(),
  /** the TPM binding of the encrypted data partition's automatic unlock (bound PCRs, slots accepted, last change) */
  diskUnlock: diskUnlockStatusSchema.optional(),
});

export const DeviceSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  spec: deviceSpecSchema.optional(),
  status: deviceStatusSchema.optional(),
});

export type DeviceSpec = z.infer<typeof deviceSpecSchema>;
export type DeviceStatus = z.infer<typeof deviceStatusSchema>;
export type Device = z.infer<typeof DeviceSchema>;

export const DEVICE_PATTERN = new NamePattern('projects/{project}/regions/{region}/devices/{device}', {
  project: ID_RULES.device,
  region: ID_RULES.device,
  device: ID_RULES.device,
});

export const deviceDefinition: ResourceDefinition<Device> = {
  kind: 'Device',
  singular: 'device',
  plural: 'devices',
  service: 'devices.outpost',
  patterns: [DEVICE_PATTERN],
  idRule: ID_RULES.device,
  schema: DeviceSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'spec.osVersion', type: 'string' },
      { path: 'status.deviceInfo.osVersion', type: 'string' },
      { path: 'status.deviceInfo.deviceType', type: 'string' },
      { path: 'status.deviceInfo.architecture', type: 'string' },
      { path: 'status.deviceInfo.hardware', type: 'string' },
      {
        path: 'status.connectionStatus',
        type: 'enum',
        enumValues: CONNECTION_STATUSES,
        // spec 000 calls them Online and Offline; the API keeps the values clients rely on
        enumAliases: { Online: 'CONNECTED', Offline: 'DISCONNECTED' },
      },
      { path: 'status.connectionStatusChangeTime', type: 'timestamp' },
      { path: 'status.osReadyReason', type: 'string' },
      { path: 'status.failingHealthCheckCount', type: 'int' },
    ],
  },
  outputOnly: ['status'],
  derive: (device) => withFailingHealthCheckCount(withOsReadyReason(device)),
  views: {
    NAME: ['name'],
    BASIC: [
      'displayName',
      'spec.osVersion',
      'status.deviceInfo.osVersion',
      'status.connectionStatus',
      'metadata.labels',
      'metadata.tags',
    ],
    DETAIL: [
      'displayName',
      'description',
      'spec',
      'status.deviceInfo',
      'status.connectionStatus',
      'status.connectionStatusChangeTime',
      'status.conditions',
      'status.configuration',
      'status.addresses',
      'metadata',
    ],
  },
};
