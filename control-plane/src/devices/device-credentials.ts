import { parseDeviceProof } from '@outpost/shared';
import type { DeviceChallengeResponse } from '@outpost/shared';
import type { Db } from '../db/open-database.js';
import { DeviceChallenges, verifyDeviceProof } from './device-identity.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** Told of a device whose credential stopped working: revoked, or replaced by a newly issued one. */
export type RevocationListener = (device: string) => void;

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
  private readonly upsertSecret;
  private readonly upsertKey;
  private readonly byHash;
  private readonly keyOf;
  private readonly removeSecret;
  private readonly removeKey;
  private readonly replaceSecret;
  private readonly replaceKey;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.challenges = new DeviceChallenges(now);
    db.exec(`CREATE TABLE IF NOT EXISTS device_credentials (
      device TEXT PRIMARY KEY,
      secret_sha256 BLOB NOT NULL UNIQUE,
      create_time TEXT NOT NULL
    )`);
    db.exec(`CREATE TABLE IF NOT EXISTS device_public_keys (
      device TEXT PRIMARY KEY,
      public_key_pem TEXT NOT NULL,
      create_time TEXT NOT NULL
    )`);
    this.upsertSecret = db.prepare<[string, Buffer, string]>(
      `INSERT INTO device_credentials(device, secret_sha256, create_time) VALUES (?, ?, ?)
       ON CONFLICT(device) DO UPDATE SET secret_sha256 = excluded.secret_sha256, create_time = excluded.create_time`,
    );
    this.upsertKey = db.prepare<[string, string, string]>(
      `INSERT INTO device_public_keys(device, public_key_pem, create_time) VALUES (?, ?, ?)
       ON CONFLICT(device) DO UPDATE SET public_key_pem = excluded.public_key_pem, create_time = excluded.create_time`,
    );
    this.byHash = db.prepare<[Buffer], { device: string }>(
      'SELECT device FROM device_credentials WHERE secret_sha256 = ?',
    );
    this.keyOf = db.prepare<[string], { public_key_pem: string }>(
      'SELECT public_key_pem FROM device_public_keys WHERE device = ?',
    );
    this.removeSecret = db.prepare<[string]>('DELETE FROM device_credentials WHERE device = ?');
    this.removeKey = db.prepare<[string]>('DELETE FROM device_public_keys WHERE device = ?');
    // one of the two at a time, swapped in one transaction (nested in the caller's, if any, as a savepoint)
    this.replaceSecret = db.transaction((device: string, sha256: Buffer) => {
      this.removeKey.run(device);
      this.upsertSecret.run(device, sha256, this.now().toISOString());
    });
    this.replaceKey = db.transaction((device: string, publicKeyPem: string) => {
      this.removeSecret.run(device);
      this.upsertKey.run(device, publicKeyPem, this.now().toISOString());
    });
  }

  /** Issues a new bearer credential for the device, invalidating any earlier one or key; returns the secret (shown once). */
  issue(device: string): string {
    const secret = newSecret('odc');
    this.replaceSecret(device, hashSecret(secret));
    this.revoked(device);
    return secret;
  }

  /**
   * From now on the device proves possession of this key (an ed25519 SPKI PEM, checked by parseDevicePublicKey);
   * its earlier key or bearer credential stops working.
   */
  setPublicKey(device: string, publicKeyPem: string): void {
    this.replaceKey(device, publicKeyPem);
    this.revoked(device);
  }

  revoke(device: string): boolean {
    const removed = this.removeSecret.run(device).changes + this.removeKey.run(device).changes > 0;
    if (removed) this.revoked(device);
    return removed;
  }

  /** Whether the device authenticates with a key pair (and may ask for challenges). */
  hasPublicKey(device: string): boolean {
    return this.keyOf.get(device) !== undefined;
  }

  /** A fresh single-use challenge for a device with a key pair to sign. */
  challenge(device: string): DeviceChallengeResponse {
    return this.challenges.issue(device);
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
    const proof = parseDeviceProof(token);
    if (proof === undefined) return this.byHash.get(hashSecret(token))?.device;
    if (!this.challenges.take(proof.device, proof.challenge)) return undefined;
    const key = this.keyOf.get(proof.device)?.public_key_pem;
    return key !== undefined && verifyDeviceProof(proof, key) ? proof.device : undefined;
  }

  /**
   * Whether `signature` signs `challenge` (one the link made for this connection, see DEVICE_KEY_CLAIM_PREFIX)
   * for the device with its current key. The challenge is the caller's, so this uses up nothing.
   */
  verifiesLinkProof(device: string, challenge: string, signature: Buffer): boolean {
    const key = this.keyOf.get(device)?.public_key_pem;
    return key !== undefined && verifyDeviceProof({ device, challenge, signature }, key);
  }

  private revoked(device: string): void {
    for (const listener of this.revocationListeners) listener(device);
  }
}
