import { z } from 'zod';

/** The six kinds of health check of spec 000 "Health check". */
export const HEALTH_CHECK_TYPES = ['HTTP', 'TCP', 'GRPC', 'ICMP', 'COMMAND', 'DEVICE_FILE'] as const;
export type HealthCheckType = (typeof HEALTH_CHECK_TYPES)[number];

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'] as const;
export const DEVICE_FILE_TYPES = [
  'FILE',
  'DIRECTORY',
  'CHARACTER_DEVICE',
  'BLOCK_DEVICE',
  'SOCKET',
  'SYMLINK',
] as const;
export type DeviceFileType = (typeof DEVICE_FILE_TYPES)[number];

/** Defaults of the timing members (Kubernetes probe style; the control plane stores them explicitly). */
export const HEALTH_CHECK_DEFAULTS = {
  intervalSeconds: 10,
  timeoutSeconds: 5,
  successThreshold: 1,
  failureThreshold: 3,
  httpMethod: 'GET',
  expectedStatus: { min: 200, max: 399 },
} as const;

const host = z.string().min(1).max(253);
const port = z.int().min(1).max(65535);
const statusCode = z.int().min(100).max(599);

export const httpCheckSchema = z.object({
  method: z.enum(HTTP_METHODS).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  /** inclusive range of healthy status codes; default 200-399 */
  expectedStatus: z.object({ min: statusCode, max: statusCode }).optional(),
  /** healthy only when the body (its first 64 KiB) contains this text */
  bodyContains: z.string().min(1).max(4096).optional(),
});

export const tcpCheckSchema = z.object({ host, port });

/** The standard grpc.health.v1.Health/Check; `service` empty or absent asks for the server as a whole. */
export const grpcCheckSchema = z.object({
  host,
  port,
  service: z.string().max(256).optional(),
  tls: z.boolean().optional(),
});

export const icmpCheckSchema = z.object({ host });

export const commandCheckSchema = z.object({
  /** the program and its arguments, run without a shell; exit status 0 is healthy */
  argv: z.array(z.string().max(4096)).min(1).max(256),
  /** run as root instead of the agent's workload user (needs devices.execAsRoot) */
  runAsRoot: z.boolean().optional(),
});

export const deviceFileCheckSchema = z.object({
  path: z.string().regex(/^\//, 'must be an absolute path').max(4096),
  /** the kind of file expected; any kind when absent */
  type: z.enum(DEVICE_FILE_TYPES).optional(),
});

/** What to probe and how often: the part of a health check the agent runs. */
export const probeSpecShape = {
  type: z.enum(HEALTH_CHECK_TYPES),
  http: httpCheckSchema.optional(),
  tcp: tcpCheckSchema.optional(),
  grpc: grpcCheckSchema.optional(),
  icmp: icmpCheckSchema.optional(),
  command: commandCheckSchema.optional(),
  deviceFile: deviceFileCheckSchema.optional(),
  /** seconds from the start of one run to the start of the next */
  intervalSeconds: z.number().positive().max(86_400).optional(),
  /** a run still going after this long is cut and counts as a failure (reason Timeout) */
  timeoutSeconds: z.number().positive().max(3_600).optional(),
  /** results in a row that turn the condition True */
  successThreshold: z.int().min(1).max(100).optional(),
  /** results in a row that turn the condition False */
  failureThreshold: z.int().min(1).max(100).optional(),
};

/** The member holding each type's settings. */
export const TYPE_MEMBER = {
  HTTP: 'http',
  TCP: 'tcp',
  GRPC: 'grpc',
  ICMP: 'icmp',
  COMMAND: 'command',
  DEVICE_FILE: 'deviceFile',
} as const satisfies Record<HealthCheckType, string>;

interface ProbeSpecView {
  type: HealthCheckType;
  intervalSeconds?: number | undefined;
  timeoutSeconds?: number | undefined;
  http?: { expectedStatus?: { min: number; max: number } | undefined } | undefined;
}

/** Cross-member rules: exactly the type's own member is set, timeout ≤ interval, a sane status range. */
export function checkProbeSpec(spec: ProbeSpecView & Record<string, unknown>, ctx: z.RefinementCtx): void {
  const own = TYPE_MEMBER[spec.type];
  if (spec[own] === undefined)
    ctx.addIssue({ code: 'custom', path: [own], message: `a ${spec.type} check needs ${own}` });
  for (const member of Object.values(TYPE_MEMBER)) {
    if (member !== own && spec[member] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [member], message: `a ${spec.type} check takes no ${member}` });
    }
  }
  const interval = spec.intervalSeconds ?? HEALTH_CHECK_DEFAULTS.intervalSeconds;
  const timeout = spec.timeoutSeconds ?? Math.min(HEALTH_CHECK_DEFAULTS.timeoutSeconds, interval);
  if (timeout > interval) {
    ctx.addIssue({ code: 'custom', path: ['timeoutSeconds'], message: 'must not be longer than intervalSeconds' });
  }
  const range = spec.http?.expectedStatus;
  if (range !== undefined && range.min > range.max) {
    ctx.addIssue({ code: 'custom', path: ['http', 'expectedStatus'], message: 'min must not be above max' });
  }
}

export const probeSpecSchema = z.object(probeSpecShape).superRefine(checkProbeSpec);
export type ProbeSpec = z.infer<typeof probeSpecSchema>;

/**
 * One health check as the control plane sends it to a device (`healthChecks[]` of the desired device):
 * the resource's name, its id (the condition is `Healthy/<id>`) and what to probe.
 */
export const appliedHealthCheckSchema = z.object({
  name: z.string().min(1),
  id: z.string().min(1),
  spec: probeSpecSchema,
});
export type AppliedHealthCheck = z.infer<typeof appliedHealthCheckSchema>;

/** The condition type a health check reports under. */
export const healthConditionType = (id: string): string => `Healthy/${id}`;
