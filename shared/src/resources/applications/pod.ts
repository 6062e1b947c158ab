import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';

export const RESTART_POLICIES = ['RESTART_POLICY_UNSPECIFIED', 'ALWAYS', 'ON_FAILURE', 'NEVER'] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];

/** reference.md §2 Pod.Status.phase, plus STOPPED: every service was stopped by a command (the pod stays deployed). */
export const POD_PHASES = [
  'PHASE_UNSPECIFIED',
  'PENDING',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'UNKNOWN',
  'IMAGE_DOWNLOAD_FAILED',
  'INIT_FAILED',
  'POD_CREATE_FAILED',
  'STOPPED',
] as const;
export type PodPhase = (typeof POD_PHASES)[number];

export const SERVICE_STATES = [
  'STATE_UNSPECIFIED',
  'WAITING',
  'RUNNING',
  'TERMINATED',
  'UNKNOWN',
  'RESTARTING',
] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export const POD_RUNTIMES = ['process', 'docker', 'podman'] as const;

const SERVICE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const envVarSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  value: z.string(),
});

/** One named service of a pod: a process (`command`) or a container (`image`, `command` overriding its entrypoint). */
export const podServiceSchema = z
  .object({
    name: z.string().regex(SERVICE_NAME, 'must be lowercase letters, digits and "-" (at most 63)'),
    /** argv of the process, or the container's entrypoint */
    command: z.array(z.string()).min(1).optional(),
    args: z.array(z.string()).optional(),
    /** a container image (docker or podman on the device) */
    image: z.string().min(1).optional(),
    env: z.array(envVarSchema).optional(),
    /** working directory; a process runs in {device_root}/data/workloads/{pod} when none is given */
    workingDir: z.string().optional(),
    /** overrides the pod's restart policy for this service */
    restartPolicy: z.enum(RESTART_POLICIES).optional(),
  })
  .refine((s) => s.command !== undefined || s.image !== undefined, {
    message: 'a service needs a command or an image',
  });

export const podSpecSchema = z
  .object({
    /** the device that runs the pod: projects/{p}/regions/{r}/devices/{d} */
    node: z.string().optional(),
    services: z.array(podServiceSchema).min(1).max(32),
    /** default ALWAYS */
    restartPolicy: z.enum(RESTART_POLICIES).optional(),
    /** run the services as root instead of the agent's workload user (needs devices.execAsRoot) */
    runAsRoot: z.boolean().optional(),
  })
  .refine((s) => new Set(s.services.map((x) => x.name)).size === s.services.length, {
    message: 'service names must be unique',
    path: ['services'],
  });

export const serviceStatusSchema = z.object({
  name: z.string(),
  state: z.enum(SERVICE_STATES),
  runtime: z.enum(POD_RUNTIMES).optional(),
  /** why it is in this state: Started, Completed, Error, Stopped, Restarting, RuntimeUnavailable, ... */
  reason: z.string().optional(),
  message: z.string().optional(),
  startTime: z.string().optional(),
  finishTime: z.string().optional(),
  exitCode: z.int().optional(),
  signal: z.string().optional(),
  restartCount: z.int().min(0).optional(),
  pid: z.int().optional(),
  containerId: z.string().optional(),
});

export const podStatusSchema = z.object({
  phase: z.enum(POD_PHASES).optional(),
  serviceStatuses: z.array(serviceStatusSchema).optional(),
  error: z.string().optional(),
  /** service failures since the pod (re)started */
  failureCount: z.int().min(0).optional(),
  /** the metadata.generation of the spec the device runs */
  observedGeneration: z.int().min(0).optional(),
  /** when the device reported this status */
  reportTime: z.string().optional(),
});

export const PodSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  spec: podSpecSchema,
  status: podStatusSchema.optional(),
});

export type EnvVar = z.infer<typeof envVarSchema>;
export type PodService = z.infer<typeof podServiceSchema>;
export type PodSpec = z.infer<typeof podSpecSchema>;
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;
export type PodStatus = z.infer<typeof podStatusSchema>;
export type Pod = z.infer<typeof PodSchema>;

export const POD_PATTERN = new NamePattern('projects/{project}/regions/{region}/pods/{pod}', {
  project: ID_RULES.device,
  region: ID_RULES.device,
  pod: ID_RULES.device,
});

export const podDefinition: ResourceDefinition<Pod> = {
  kind: 'Pod',
  singular: 'pod',
  plural: 'pods',
  service: 'applications.outpost',
  patterns: [POD_PATTERN],
  idRule: ID_RULES.device,
  schema: PodSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'spec.node', type: 'name' },
      { path: 'spec.restartPolicy', type: 'enum', enumValues: RESTART_POLICIES },
      { path: 'status.phase', type: 'enum', enumValues: POD_PHASES },
      { path: 'status.observedGeneration', type: 'int' },
      { path: 'status.reportTime', type: 'timestamp' },
    ],
  },
  outputOnly: ['status'],
  views: {
    NAME: ['name', 'displayName'],
    BASIC: ['name', 'displayName', 'spec.node', 'status.phase', 'metadata.labels', 'metadata.tags'],
    DETAIL: ['name', 'displayName', 'description', 'spec', 'status.phase', 'status.serviceStatuses', 'metadata'],
  },
};
