import { z } from 'zod';

/**
 * A device with a key pair never sends a reusable secret. Before each authenticated request it asks for a
 * challenge (`POST /v1/{device}:challenge`, no credential) and sends, as its bearer token, a one-time proof:
 * `odp1.<device name>.<challenge>.<ed25519 signature, base64url>`. The server accepts a challenge once, for the
 * device it was issued to, until it expires.
 */
export const DEVICE_PROOF_PREFIX = 'odp1';

/** The custom method that hands out challenges; the device is the resource it is called on. */
export const deviceChallengePath = (device: string): string => `/v1/${device}:challenge`;

/** The custom method that moves a device from its bearer credential to a key pair (authenticated by that credential). */
export const deviceEnrollKeyPath = (device: string): string => `/v1/${device}:enrollKey`;

export const deviceChallengeResponseSchema = z.object({
  challenge: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
  expireTime: z.string(),
});
export type DeviceChallengeResponse = z.infer<typeof deviceChallengeResponseSchema>;

/** A public key as the control plane stores it: an ed25519 key, SPKI PEM. */
export const devicePublicKeySchema = z
  .string()
  .max(1024)
  .regex(
    /^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----\r?\n?$/,
    'an SPKI PEM public key',
  );

/**
 * What the device signs: domain-separated (no other signature of this key can pass for a proof) and bound to
 * the device name, so a challenge issued to one device proves nothing for another.
 */
export const deviceProofMessage = (device: string, challenge: string): Buffer =>
  Buffer.from(`outpost device proof v1\n${device}\n${challenge}`, 'utf8');

export interface DeviceProof {
  device: string;
  challenge: string;
  signature: Buffer;
}

export const formatDeviceProof = (proof: DeviceProof): string =>
  `${DEVICE_PROOF_PREFIX}.${proof.device}.${proof.challenge}.${proof.signature.toString('base64url')}`;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The proof a bearer token carries, or undefined when it is not one (a credential, an API key, garbage). */
export function parseDeviceProof(token: string): DeviceProof | undefined {
  const parts = token.split('.');
  // device names hold no dots today; taking the ends keeps the format safe if they ever do
  if (parts.length < 4 || parts[0] !== DEVICE_PROOF_PREFIX) return undefined;
  const signature = parts[parts.length - 1]!;
  const challenge = parts[parts.length - 2]!;
  const device = parts.slice(1, -2).join('.');
  if (device === '' || !BASE64URL.test(challenge) || !BASE64URL.test(signature)) return undefined;
  return { device, challenge, signature: Buffer.from(signature, 'base64url') };
}

/**
 * The agent link's cheaper form of the proof (one connection, no challenge request): the upgrade carries only
 * `Authorization: Bearer odk1.<device name>`; the server answers the upgrade, sends a `challenge` message, and
 * accepts nothing but the `proof` message signing it (deviceProofMessage) before its welcome. The challenge
 * belongs to that one connection, so a proof can be neither replayed on another nor used as an `odp1` token.
 */
export const DEVICE_KEY_CLAIM_PREFIX = 'odk1';

export const formatDeviceKeyClaim = (device: string): string => `${DEVICE_KEY_CLAIM_PREFIX}.${device}`;

/** The device a bearer token claims to be, to be challenged on the link, or undefined when it is no such claim. */
export function parseDeviceKeyClaim(token: string): string | undefined {
  if (!token.startsWith(`${DEVICE_KEY_CLAIM_PREFIX}.`)) return undefined;
  const device = token.slice(DEVICE_KEY_CLAIM_PREFIX.length + 1);
  return device === '' ? undefined : device;
}

/** The WebSocket close code of a link whose proof was missing, late or wrong (the agent retries slowly, as on 401). */
export const LINK_PROOF_REFUSED_CLOSE_CODE = 4401;

/** The largest challenge or proof message either side reads before the device is authenticated. */
export const MAX_LINK_PROOF_FRAME_BYTES = 1024;

export const linkChallengeMessageSchema = z
  .object({ type: z.literal('challenge'), challenge: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/) })
  .strict();
export type LinkChallengeMessage = z.infer<typeof linkChallengeMessageSchema>;

export const linkProofMessageSchema = z
  .object({ type: z.literal('proof'), signature: z.string().regex(/^[A-Za-z0-9_-]{1,256}$/) })
  .strict();
export type LinkProofMessage = z.infer<typeof linkProofMessageSchema>;

/** A challenge or proof frame checked against `schema`, or undefined (too long, not JSON, not that message). */
export function parseLinkProofFrame<T>(text: string, schema: z.ZodType<T>): T | undefined {
  if (Buffer.byteLength(text, 'utf8') > MAX_LINK_PROOF_FRAME_BYTES) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
