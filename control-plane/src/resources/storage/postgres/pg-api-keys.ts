import type { ApiKeyRecord, ApiKeyRecords } from '../stores/api-key-records.js';
import type { PgStorage } from './pg-storage.js';

const COLUMNS = 'id, display_name, grants_json, secret_sha256, create_time';

const recordOf = (row: unknown[]): ApiKeyRecord => ({
  id: row[0] as string,
  displayName: row[1] as string,
  grantsJson: row[2] as string,
  secretSha256: row[3] as Uint8Array,
  createTime: row[4] as string,
});

/** The API keys in the PostgreSQL table iam_api_keys (pg-migrations.ts, version 2). */
export class PgApiKeys implements ApiKeyRecords {
  constructor(private readonly storage: PgStorage) {}

  get(id: string): ApiKeyRecord | undefined {
    const row = this.storage.query(`SELECT ${COLUMNS} FROM iam_api_keys WHERE id = ?`, [id]).rows[0];
    return row && recordOf(row);
  }

  list(): ApiKeyRecord[] {
    return this.storage.query(`SELECT ${COLUMNS} FROM iam_api_keys ORDER BY create_time, id`).rows.map(recordOf);
  }

  insertIfAbsent(key: ApiKeyRecord): boolean {
    const { id, displayName, grantsJson, secretSha256, createTime } = key;
    const inserted = this.storage.query(
      `INSERT INTO iam_api_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [id, displayName, grantsJson, secretSha256, createTime],
    );
    return inserted.rowCount === 1;
  }

  replaceSecret(id: string, secretSha256: Uint8Array, grantsJson: string): boolean {
    const updated = this.storage.query('UPDATE iam_api_keys SET secret_sha256 = ?, grants_json = ? WHERE id = ?', [
      secretSha256,
      grantsJson,
      id,
    ]);
    return updated.rowCount === 1;
  }

  delete(id: string): boolean {
    return this.storage.query('DELETE FROM iam_api_keys WHERE id = ?', [id]).rowCount === 1;
  }
}
