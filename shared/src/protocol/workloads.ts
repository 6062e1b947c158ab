import { z } from 'zod';
import { podSpecSchema, podStatusSchema } from '../resources/applications/pod.js';

/** One pod the device must run, as the server sends it along with the device's spec. */
export const desiredPodSchema = z.object({
  /** projects/{p}/regions/{r}/pods/{pod} */
  name: z.string().min(1),
  /** the pod's metadata.generation: bumped whenever its spec changes */
  generation: z.int().nonnegative(),
  spec: podSpecSchema,
});

/** The agent's report of its pods' states (on change, and all of them after every welcome). */
export const podStatusMessageSchema = z.object({
  type: z.literal('podStatus'),
  pods: z.array(z.object({ name: z.string().min(1), status: podStatusSchema })).max(1000),
});

export const POD_ACTIONS = ['START', 'STOP', 'RESTART'] as const;
export type PodAction = (typeof POD_ACTIONS)[number];

/** `pods.control`: start, stop or restart a pod or one of its services (stop lasts until the next boot). */
export const POD_CONTROL_COMMAND = 'pods.control';
export const podControlArgsSchema = z.object({
  pod: z.string().min(1),
  /** one service; absent: the whole pod */
  service: z.string().min(1).optional(),
  action: z.enum(POD_ACTIONS),
});

export type DesiredPod = z.infer<typeof desiredPodSchema>;
export type PodStatusMessage = z.infer<typeof podStatusMessageSchema>;
export type PodControlArgs = z.infer<typeof podControlArgsSchema>;
