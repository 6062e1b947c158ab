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
