import type { Db } from './open-database.js';
import type { DeviceCredentialRecords, DeviceSecret } from '../stores/device-credential-records.js';

/** Device credentials in the SQLite tables device_credentials and device_public_keys (migration version 3). */
export class SqliteDeviceCredentials implements DeviceCredentialRecords {
  private readonly bySecret;
  private readonly keyOf;
  private readonly removeSecret;
  private readonly removeKey;
  private readonly swapToSecret;
  private readonly swapToKey;
  private readonly swapManyToSecrets;

  constructor(db: Db) {
    const upsertSecret = db.prepare<[string, Uint8Array, string]>(
      `INSERT INTO device_credentials(device, secret_sha256, create_time) VALUES (?, ?, ?)
       ON CONFLICT(device) DO UPDATE SET secret_sha256 = excluded.secret_sha256, create_time = excluded.create_time`,
    );
    const upsertKey = db.prepare<[string, string, string]>(
      `INSERT INTO device_public_keys(device, public_key_pem, create_time) VALUES (?, ?, ?)
       ON CONFLICT(device) DO UPDATE SET public_key_pem = excluded.public_key_pem, create_time = excluded.create_time`,
    );
    this.bySecret = db.prepare<[Uint8Array], { device: string }>(
      'SELECT device FROM device_credentials WHERE secret_sha256 = ?',
    );
    this.keyOf = db.prepare<[string], { public_key_pem: string }>(
      'SELECT public_key_pem FROM device_public_keys WHERE device = ?',
    );
    this.removeSecret = db.prepare<[string]>('DELETE FROM device_credentials WHERE device = ?');
    this.removeKey = db.prepare<[string]>('DELETE FROM device_public_keys WHERE device = ?');
    // one of the two at a time, swapped in one transaction (nested in the caller's, if any, as a savepoint)
    this.swapToSecret = db.transaction((device: string, sha256: Uint8Array, time: string) => {
      this.removeKey.run(device);
      upsertSecret.run(device, sha256, time);
    });
    this.swapManyToSecrets = db.transaction((secrets: readonly DeviceSecret[], time: string) => {
      for (const { device, secretSha256 } of secrets) {
        this.removeKey.run(device);
        upsertSecret.run(device, secretSha256, time);
      }
    });
    this.swapToKey = db.transaction((device: string, publicKeyPem: string, time: string) => {
      this.removeSecret.run(device);
      upsertKey.run(device, publicKeyPem, time);
    });
  }

  replaceWithSecret(device: string, secretSha256: Uint8Array, createTime: string): void {
    this.swapToSecret(device, secretSha256, createTime);
  }

  replaceManyWithSecrets(secrets: readonly DeviceSecret[], createTime: string): void {
    this.swapManyToSecrets(secrets, createTime);
  }

  replaceWithKey(device: string, publicKeyPem: string, createTime: string): void {
    this.swapToKey(device, publicKeyPem, createTime);
  }

  deviceOfSecret(secretSha256: Uint8Array): string | undefined {
    return this.bySecret.get(secretSha256)?.device;
  }

  publicKeyOf(device: string): string | undefined {
    return this.keyOf.get(device)?.public_key_pem;
  }

  remove(device: string): boolean {
    return this.removeSecret.run(device).changes + this.removeKey.run(device).changes > 0;
  }
}
