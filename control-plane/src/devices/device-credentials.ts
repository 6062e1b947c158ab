import type { Db } from '../db/open-database.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** Told of a device whose credential stopped working: revoked, or replaced by a newly issued one. */
export type RevocationListener = (device: string) => void;

/**
 * The credential each device authenticates its agent link with. Only its sha256 is stored; issuing a new one
 * replaces (rotates) the old, revoking removes it. Both tell the revocation listeners, so that what the old
 * credential opened (the agent link, its transfers and downloads) is closed at once.
 */
export class DeviceCredentials {
  private readonly revocationListeners = new Set<RevocationListener>();
  private readonly upsert;
  private readonly byHash;
  private readonly remove;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS device_credentials (
      device TEXT PRIMARY KEY,
      secret_sha256 BLOB NOT NULL UNIQUE,
      create_time TEXT NOT NULL
    )`);
    this.upsert = db.prepare<[string, Buffer, string]>(
      `INSERT INTO device_credentials(device, secret_sha256, create_time) VALUES (?, ?, ?)
       ON CONFLICT(device) DO UPDATE SET secret_sha256 = excluded.secret_sha256, create_time = excluded.create_time`,
    );
    this.byHash = db.prepare<[Buffer], { device: string }>(
      'SELECT device FROM device_credentials WHERE secret_sha256 = ?',
    );
    this.remove = db.prepare<[string]>('DELETE FROM device_credentials WHERE device = ?');
  }

  /** Issues a new credential for the device, invalidating any earlier one; returns the secret (shown once). */
  issue(device: string): string {
    const secret = newSecret('odc');
    this.upsert.run(device, hashSecret(secret), this.now().toISOString());
    this.revoked(device);
    return secret;
  }

  revoke(device: string): boolean {
    const removed = this.remove.run(device).changes > 0;
    if (removed) this.revoked(device);
    return removed;
  }

  /** Calls `listener` whenever a device's credential is revoked or rotated; returns the unsubscribe. */
  onRevoked(listener: RevocationListener): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  /** The device a secret belongs to, or undefined. */
  deviceOf(secret: string): string | undefined {
    return this.byHash.get(hashSecret(secret))?.device;
  }

  private revoked(device: string): void {
    for (const listener of this.revocationListeners) listener(device);
  }
}
