import { createPublicKey, randomBytes, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { deviceProofMessage, devicePublicKeySchema, invalidArgument } from '@outpost/shared';
import type { DeviceChallengeResponse, DeviceProof } from '@outpost/shared';

/** How long a challenge may be answered: one connection attempt, with room for a slow link. */
export const CHALLENGE_TTL_MS = 60_000;
/** Challenges outstanding per device; asking for more forgets the oldest (nobody can grow the book without end). */
export const MAX_CHALLENGES_PER_DEVICE = 8;

/**
 * The challenges handed out and not yet answered, in memory: each is bound to one device, answered at most once
 * and forgotten after CHALLENGE_TTL_MS. A restart forgets them all, which only costs the agents one more request.
 */
export class DeviceChallenges {
  private readonly byDevice = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  issue(device: string): DeviceChallengeResponse {
    const now = this.now().getTime();
    this.sweep(now);
    let open = this.byDevice.get(device);
    if (!open) this.byDevice.set(device, (open = new Map()));
    while (open.size >= MAX_CHALLENGES_PER_DEVICE) open.delete(open.keys().next().value!);
    const challenge = newChallenge();
    const expiresAt = now + CHALLENGE_TTL_MS;
    open.set(challenge, expiresAt);
    return { challenge, expireTime: new Date(expiresAt).toISOString() };
  }

  /** Whether the challenge was issued to the device and is still open; it is closed either way (single use). */
  take(device: string, challenge: string): boolean {
    const open = this.byDevice.get(device);
    const expiresAt = open?.get(challenge);
    if (open === undefined || expiresAt === undefined) return false;
    open.delete(challenge);
    if (open.size === 0) this.byDevice.delete(device);
    return expiresAt > this.now().getTime();
  }

  private sweep(now: number): void {
    for (const [device, open] of this.byDevice) {
      for (const [challenge, expiresAt] of open) if (expiresAt <= now) open.delete(challenge);
      if (open.size === 0) this.byDevice.delete(device);
    }
  }
}

/** 32 random bytes, base64url: what a device signs to prove it holds its key. */
export const newChallenge = (): string => randomBytes(32).toString('base64url');

/** The device's ed25519 public key from SPKI PEM, normalised; INVALID_ARGUMENT for anything else. */
export function parseDevicePublicKey(pem: unknown): string {
  const shaped = devicePublicKeySchema.safeParse(pem);
  if (!shaped.success) throw invalidArgument('publicKey must be an ed25519 public key in SPKI PEM form');
  let key: KeyObject;
  try {
    key = createPublicKey(shaped.data);
  } catch {
    throw invalidArgument('publicKey is not a readable public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw invalidArgument(`publicKey must be an ed25519 key, not ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** Whether `proof` carries the signature of its challenge and device by the key `publicKeyPem`. */
export function verifyDeviceProof(proof: DeviceProof, publicKeyPem: string): boolean {
  try {
    const key = ed25519KeyOf(publicKeyPem);
    return verify(null, deviceProofMessage(proof.device, proof.challenge), key, proof.signature);
  } catch {
    return false; // a signature of the wrong length, say
  }
}

/** The DER of an ed25519 SPKI up to its 32 key bytes (RFC 8410): every key parseDevicePublicKey stores starts so. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The stored key as a KeyObject. OpenSSL 3's PEM/DER decoders cost a connect about 0.25 ms; the raw key bytes,
 * imported as a JWK, about half that. Anything but a plain ed25519 SPKI goes through the decoders.
 */
function ed25519KeyOf(publicKeyPem: string): KeyObject | string {
  const der = Buffer.from(publicKeyPem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
  if (
    der.length !== ED25519_SPKI_PREFIX.length + 32 ||
    !der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX)
  ) {
    return publicKeyPem;
  }
  const x = der.subarray(ED25519_SPKI_PREFIX.length).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}
