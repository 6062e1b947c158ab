import { z } from 'zod';
import { label } from './bounds.js';
import { reportedStatusSchema } from './device-status.js';
import { errorDetailSchema, errorMessageSchema } from './error-message.js';
import { metricsSampleSchema } from './metrics.js';
import { podStatusMessageSchema } from './workloads.js';

/** First message on every connection. */
export const helloMessageSchema = z.object({
  type: z.literal('hello'),
  agentVersion: label.min(1),
  /** the kernel's boot id: a new value means the device rebooted */
  bootId: label.min(1),
  /** what the agent can do: `status`, `metrics`, `spec`, and the names of the commands it accepts */
  capabilities: z.array(label).max(1024),
});

/** A change of the reported status (sent on change only, and once after every welcome). */
export const statusMessageSchema = z.object({
  type: z.literal('status'),
  /** increases with every status message of one agent process */
  seq: z.int().nonnegative(),
  ...reportedStatusSchema.shape,
});

export const metricsMessageSchema = z.object({
  type: z.literal('metrics'),
  ...metricsSampleSchema.shape,
});

export const pongMessageSchema = z.object({
  type: z.literal('pong'),
  nonce: label,
});

/** Asks the server to send the device's `spec` now (after every welcome and on a jittered interval). */
export const getSpecMessageSchema = z.object({
  type: z.literal('getSpec'),
});

/** The answer to a server `command` with the same id. */
export const resultMessageSchema = z
  .object({
    type: z.literal('result'),
    id: label.min(1),
    ok: z.boolean(),
    error: errorDetailSchema.optional(),
    data: z.unknown().optional(),
  })
  .refine((r) => r.ok || r.error !== undefined, { message: 'a failed result needs an error', path: ['error'] });

export const agentMessageSchema = z.discriminatedUnion('type', [
  helloMessageSchema,
  statusMessageSchema,
  metricsMessageSchema,
  pongMessageSchema,
  getSpecMessageSchema,
  resultMessageSchema,
  errorMessageSchema,
  podStatusMessageSchema,
]);

/** The `type` of every message this side sends. */
export const AGENT_MESSAGE_TYPES: readonly string[] = agentMessageSchema.options.map((o) => o.shape.type.value);

export type HelloMessage = z.infer<typeof helloMessageSchema>;
export type StatusMessage = z.infer<typeof statusMessageSchema>;
export type MetricsMessage = z.infer<typeof metricsMessageSchema>;
export type PongMessage = z.infer<typeof pongMessageSchema>;
export type GetSpecMessage = z.infer<typeof getSpecMessageSchema>;
export type ResultMessage = z.infer<typeof resultMessageSchema>;
export type AgentMessage = z.infer<typeof agentMessageSchema>;
export type AgentMessageType = AgentMessage['type'];
