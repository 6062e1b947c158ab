import { z } from 'zod';
import { ApiError, CANONICAL_CODES, CHANNEL_SERVICES, internalError } from '@outpost/shared';

/**
 * The internal WebSocket between replicas (cluster/relay-*.ts): a replica asked for a device whose link another
 * replica holds sends it the command, or the opening of a channel, as JSON text messages; the answer comes back
 * with the same id. A channel's bytes then go as binary channel frames (shared/src/channels), their ids chosen by
 * the asking replica, under the same credit window as on the device's link.
 */
export const RELAY_PATH = '/internal/cluster:relay';
/** Sent, with the cluster secret, as `Authorization: Bearer <secret>` on the relay's upgrade request. */
export const RELAY_AUTH_SCHEME = 'Bearer';

const deviceName = z.string().min(1).max(512);
const timeoutMs = z.number().int().positive().max(3_600_000);

export const relayRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('command'),
    id: z.number().int().nonnegative(),
    device: deviceName,
    command: z.string().min(1).max(128),
    args: z.unknown().optional(),
    timeoutMs,
  }),
  z.object({
    type: z.literal('open'),
    id: z.number().int().nonnegative(),
    device: deviceName,
    service: z.enum(CHANNEL_SERVICES),
    args: z.unknown().optional(),
    timeoutMs,
    channelId: z.number().int().positive().max(0xffff_ffff),
  }),
]);
export type RelayRequest = z.infer<typeof relayRequestSchema>;

export const relayAnswerSchema = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), data: z.unknown().optional() }),
  z.object({
    id: z.number().int(),
    ok: z.literal(false),
    error: z.object({ status: z.enum(CANONICAL_CODES), message: z.string() }),
  }),
]);
export type RelayAnswer = z.infer<typeof relayAnswerSchema>;

export function failureAnswer(id: number, err: unknown): RelayAnswer {
  const error = err instanceof ApiError ? err : internalError(err instanceof Error ? err.message : String(err));
  return { id, ok: false, error: { status: error.status, message: error.message } };
}
