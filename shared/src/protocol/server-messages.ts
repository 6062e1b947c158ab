import { z } from 'zod';
import { errorMessageSchema } from './error-message.js';
import { osImageSchema } from './os-update.js';

/** The server's answer to `hello`: the link is up. */
export const welcomeMessageSchema = z.object({
  type: z.literal('welcome'),
  /** projects/{p}/regions/{r}/devices/{d} */
  deviceName: z.string().min(1),
  /** the server pings every heartbeat; see DEAD_LINK_HEARTBEATS */
  heartbeatSeconds: z.number().positive(),
  serverTime: z.iso.datetime({ offset: true }),
});

/** The desired state the agent converges on: the device's spec and the metadata it needs. */
export const desiredDeviceSchema = z.object({
  name: z.string().min(1),
  /** the device's whole spec; other members (network, ssh, ...) pass through untyped here */
  spec: z.looseObject({ osVersion: z.string().optional() }),
  metadata: z.looseObject({
    /** bumped whenever spec changes */
    generation: z.int().nonnegative(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  /** the image of spec.osVersion for this device's type; absent when none is set or published */
  osImage: osImageSchema.optional(),
  /**
   * the health checks that apply to the device (by label selector or spec.healthChecks); absent: none. Loosely
   * typed here so that one check an older agent cannot run never makes it refuse the whole spec: the agent
   * validates each against appliedHealthCheckSchema and reports the ones it cannot run as Unknown/Unsupported.
   */
  healthChecks: z
    .array(z.looseObject({ name: z.string().min(1), id: z.string().min(1), spec: z.looseObject({}) }))
    .optional(),
  /**
   * the pods whose spec.node is this device (absent: none). Loosely typed for the same reason: the agent validates
   * each against desiredPodSchema and reports one it cannot run as failed, never refusing the whole spec.
   */
  pods: z
    .array(z.looseObject({ name: z.string().min(1), generation: z.int().nonnegative(), spec: z.looseObject({}) }))
    .optional(),
});

/** Pushed whenever the device's spec changes, and in answer to `getSpec`. */
export const specMessageSchema = z.object({
  type: z.literal('spec'),
  device: desiredDeviceSchema,
});

export const pingMessageSchema = z.object({
  type: z.literal('ping'),
  nonce: z.string(),
});

/** An operation on the live connection (reboot, shutdown, pod control, ...); answered by a `result`. */
export const commandMessageSchema = z.object({
  type: z.literal('command'),
  id: z.string().min(1),
  command: z.string().min(1),
  args: z.unknown().optional(),
});

export const serverMessageSchema = z.discriminatedUnion('type', [
  welcomeMessageSchema,
  specMessageSchema,
  pingMessageSchema,
  commandMessageSchema,
  errorMessageSchema,
]);

/** The `type` of every message this side sends. */
export const SERVER_MESSAGE_TYPES: readonly string[] = serverMessageSchema.options.map((o) => o.shape.type.value);

export type WelcomeMessage = z.infer<typeof welcomeMessageSchema>;
export type DesiredDevice = z.infer<typeof desiredDeviceSchema>;
export type SpecMessage = z.infer<typeof specMessageSchema>;
export type PingMessage = z.infer<typeof pingMessageSchema>;
export type CommandMessage = z.infer<typeof commandMessageSchema>;
export type ServerMessage = z.infer<typeof serverMessageSchema>;
export type ServerMessageType = ServerMessage['type'];
