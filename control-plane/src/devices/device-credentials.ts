import { parseDeviceProof } from '@outpost/shared';
import type { DeviceChallengeResponse } from '@outpost/shared';
import type { DeviceCredentialRecords } from '../resources/storage/stores/device-credential-records.js';
import { DeviceChallenges, verifyDeviceProof } from './device-identity.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** What authenticated a device: the sha256 of its bearer credential, or the public key its proof was checked with. */
export type UsedCredential = { readonly secretSha256: Uint8Array } | { readonly publicKeyPem: string };

/**
 * Told of a device whose credential stopped working: revoked, or replaced by a newly issued one, through this
 * process ('here') or through another replica ('elsewhere').
 */
export type RevocationListener = (device: string, origin: 'here' | 'elsewhere') => void;

/**
 * What each device authenticates its agent link and downloads with: either a bearer credential, of which only
 * the sha256 is stored, or an ed25519 public key, whose private half never leaves the device (it signs a fresh
 * challenge per request instead). A device has at most one of the two: issuing a credential or registering a
 * key replaces (rotates) what it had, revoking removes it. Both tell the revocation listeners, so that what the
 * old credential opened (the agent link, its transfers and downloads) is closed at once.
 */
export class DeviceCredentials {
  private readonly revocationListeners = new Set<RevocationListener>();
  private readonly challenges: DeviceChallenges;

  /**
   * `afterCommit` runs its function once the store's current transaction has committed (ResourceEngine's): the
   * listeners, which tell other replicas, learn of a revocation made inside a transaction only when it holds.
   */
  constructor(
    private readonly records: DeviceCredentialRecords,
    private readonly now: () => Date = () => new Date(),
    private readonly afterCommit: (fn: () => void) => void = (fn) => fn(),
  ) {
    this.challenges = new DeviceChallenges(now);
  }

  /** Issues a new bearer credential for the device, invalidating any earlier one or key; returns the secret (shown once). */
  issue(device: string): string {
    const secret = newSecret('odc');
    this.records.replaceWithSecret(device, hashSecret(secret), this.now().toISOString());
    this.revoked(device);
    return secret;
  }

  /** As `issue` for each device, stored in one write; the secrets in the devices' order. */
  issueMany(devices: readonly string[]): string[] {
    if (new Set(devices).size !== devices.length) throw new Error('issueMany was given a device twice');
    const secrets = devices.map(() => newSecret('odc'));
    const hashed = devices.map((device, i) => ({ device, secretSha256: hashSecret(secrets[i]!) }));
    this.records.replaceManyWithSecrets(hashed, this.now().toISOString());
    for (const device of devices) this.revoked(device);
    return secrets;
  }

  /**
   * From now on the device proves possession of this key (an ed25519 SPKI PEM, checked by parseDevicePublicKey);
   * its earlier key or bearer credential stops working.
   */
  setPublicKey(device: string, publicKeyPem: string): void {
    this.records.replaceWithKey(device, publicKeyPem, this.now().toISOString());
    this.revoked(device);
  }

  revoke(device: string): boolean {
    const removed = this.records.remove(device);
    if (removed) this.revoked(device);
    return removed;
  }

  /** Whether the device authenticates with a key pair (and may ask for challenges). */
  hasPublicKey(device: string): boolean {
    return this.records.publicKeyOf(device) !== undefined;
  }

  /** A fresh single-use challenge for a device with a key pair to sign. */
  challenge(device: string): DeviceChallengeResponse {
    return this.challenges.issue(device);
  }

  /** Tells the listeners of a device whose credential another replica revoked or rotated in the shared store. */
  revokedElsewhere(device: string): void {
    for (const listener of this.revocationListeners) listener(device, 'elsewhere');
  }

  /** Calls `listener` whenever a device's credential is revoked or rotated; returns the unsubscribe. */
  onRevoked(listener: RevocationListener): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  /**
   * The device a bearer token authenticates, or undefined: its credential, or a proof (see parseDeviceProof)
   * signing a challenge it was given, not answered before, with its current key. A proof is used up by this call.
   */
  deviceOf(token: string): string | undefined {
    return this.authenticate(token)?.device;
  }

  /** As deviceOf, with what authenticated the device, to ask later whether it still does (stillAuthenticates). */
  authenticate(token: string): { device: string; used: UsedCredential } | undefined {
    const proof = parseDeviceProof(token);
    if (proof === undefined) {
      const secretSha256 = hashSecret(token);
      const device = this.records.deviceOfSecret(secretSha256);
      return device === undefined ? undefined : { device, used: { secretSha256 } };
    }
    if (!this.challenges.take(proof.device, proof.challenge)) return undefined;
    const key = this.records.publicKeyOf(proof.device);
    return key !== undefined && verifyDeviceProof(proof, key)
      ? { device: proof.device, used: { publicKeyPem: key } }
      : undefined;
  }

  /**
   * Whether `signature` signs `challenge` (one the link made for this connection, see DEVICE_KEY_CLAIM_PREFIX)
   * for the device with its current key. The challenge is the caller's, so this uses up nothing.
   */
  verifiesLinkProof(device: string, challenge: string, signature: Buffer): boolean {
    return this.linkProofCredential(device, challenge, signature) !== undefined;
  }

  /** As verifiesLinkProof: the key that verified the proof, or undefined. */
  linkProofCredential(device: string, challenge: string, signature: Buffer): UsedCredential | undefined {
    const key = this.records.publicKeyOf(device);
    return key !== undefined && verifyDeviceProof({ device, challenge, signature }, key)
      ? { publicKeyPem: key }
      : undefined;
  }

  /**
   * Whether what once authenticated the device still does: it was not revoked nor replaced since. For a replica
   * that was not told of revocations for a while (its LISTEN connection was lost).
   */
  stillAuthenticates(device: string, used: UsedCredential): boolean {
    if ('secretSha256' in used) return this.records.deviceOfSecret(used.secretSha256) === device;
    return this.records.publicKeyOf(device) === used.publicKeyPem;
  }

  private revoked(device: string): void {
    this.afterCommit(() => {
      for (const listener of this.revocationListeners) listener(device, 'here');
    });
  }
}
