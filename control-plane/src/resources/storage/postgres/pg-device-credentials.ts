import type { DeviceCredentialRecords, DeviceSecret } from '../stores/device-credential-records.js';
import type { PgStorage } from './pg-storage.js';

/**
 * Device credentials in the PostgreSQL tables device_credentials and device_public_keys (migration version 2).
 * Swapping one kind for the other is one statement (a DELETE in a WITH clause), so one step without a transaction.
 */
export class PgDeviceCredentials implements DeviceCredentialRecords {
  constructor(private readonly storage: PgStorage) {}

  replaceWithSecret(device: string, secretSha256: Uint8Array, createTime: string): void {
    this.replace(device, { table: 'device_credentials', column: 'secret_sha256', value: secretSha256 }, createTime);
  }

  /**
   * One statement whatever the count, queued with the transaction's other writes (PgStorage.defer): no round
   * trip of its own. The hashes go as hex, one text array, rather than as an array of binary values.
   */
  replaceManyWithSecrets(secrets: readonly DeviceSecret[], createTime: string): void {
    if (secrets.length === 0) return;
    const devices = secrets.map((s) => s.device);
    const hashes = secrets.map((s) => Buffer.from(s.secretSha256).toString('hex'));
    this.storage.defer({
      sql: `WITH dropped AS (DELETE FROM device_public_keys WHERE device = ANY(?::text[]))
       INSERT INTO device_credentials(device, secret_sha256, create_time)
       SELECT device, decode(sha256, 'hex'), ? FROM unnest(?::text[], ?::text[]) AS s(device, sha256)
       ON CONFLICT (device) DO UPDATE SET secret_sha256 = excluded.secret_sha256, create_time = excluded.create_time`,
      params: [devices, createTime, devices, hashes],
    });
  }

  replaceWithKey(device: string, publicKeyPem: string, createTime: string): void {
    this.replace(device, { table: 'device_public_keys', column: 'public_key_pem', value: publicKeyPem }, createTime);
  }

  deviceOfSecret(secretSha256: Uint8Array): string | undefined {
    const row = this.storage.query('SELECT device FROM device_credentials WHERE secret_sha256 = ?', [secretSha256])
      .rows[0];
    return row?.[0] as string | undefined;
  }

  publicKeyOf(device: string): string | undefined {
    const row = this.storage.query('SELECT public_key_pem FROM device_public_keys WHERE device = ?', [device]).rows[0];
    return row?.[0] as string | undefined;
  }

  remove(device: string): boolean {
    const removed = this.storage.query(
      `WITH secrets AS (DELETE FROM device_credentials WHERE device = ? RETURNING 1),
            keys AS (DELETE FROM device_public_keys WHERE device = ? RETURNING 1)
       SELECT (SELECT count(*) FROM secrets) + (SELECT count(*) FROM keys)`,
      [device, device],
    );
    return Number(removed.rows[0]?.[0] ?? 0) > 0;
  }

  /** Stores the device's credential in `kept.table` and deletes what it had in the other table, in one statement. */
  private replace(
    device: string,
    kept: { table: CredentialTable; column: string; value: unknown },
    time: string,
  ): void {
    const other: CredentialTable = kept.table === 'device_credentials' ? 'device_public_keys' : 'device_credentials';
    this.storage.query(
      `WITH dropped AS (DELETE FROM ${other} WHERE device = ?)
       INSERT INTO ${kept.table}(device, ${kept.column}, create_time) VALUES (?, ?, ?)
       ON CONFLICT (device) DO UPDATE SET ${kept.column} = excluded.${kept.column}, create_time = excluded.create_time`,
      [device, device, kept.value, time],
    );
  }
}

type CredentialTable = 'device_credentials' | 'device_public_keys';
