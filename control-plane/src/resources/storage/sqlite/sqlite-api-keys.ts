import type { Db } from './open-database.js';
import type { ApiKeyRecord, ApiKeyRecords } from '../stores/api-key-records.js';

interface ApiKeyRow {
  id: string;
  display_name: string;
  grants_json: string;
  secret_sha256: Buffer;
  create_time: string;
}

const recordOf = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  displayName: row.display_name,
  grantsJson: row.grants_json,
  secretSha256: row.secret_sha256,
  createTime: row.create_time,
});

/** The API keys in the SQLite table iam_api_keys (sqlite-migrations.ts, version 3). */
export class SqliteApiKeys implements ApiKeyRecords {
  private readonly byId;
  private readonly all;
  private readonly insert;
  private readonly update;
  private readonly remove;

  constructor(db: Db) {
    this.byId = db.prepare<[string], ApiKeyRow>('SELECT * FROM iam_api_keys WHERE id = ?');
    this.all = db.prepare<[], ApiKeyRow>('SELECT * FROM iam_api_keys ORDER BY create_time, id');
    this.insert = db.prepare<[string, string, string, Uint8Array, string]>(
      `INSERT INTO iam_api_keys (id, display_name, grants_json, secret_sha256, create_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.update = db.prepare<[Uint8Array, string, string]>(
      'UPDATE iam_api_keys SET secret_sha256 = ?, grants_json = ? WHERE id = ?',
    );
    this.remove = db.prepare<[string]>('DELETE FROM iam_api_keys WHERE id = ?');
  }

  get(id: string): ApiKeyRecord | undefined {
    const row = this.byId.get(id);
    return row && recordOf(row);
  }

  list(): ApiKeyRecord[] {
    return this.all.all().map(recordOf);
  }

  insertIfAbsent(key: ApiKeyRecord): boolean {
    const { id, displayName, grantsJson, secretSha256, createTime } = key;
    return this.insert.run(id, displayName, grantsJson, secretSha256, createTime).changes === 1;
  }

  replaceSecret(id: string, secretSha256: Uint8Array, grantsJson: string): boolean {
    return this.update.run(secretSha256, grantsJson, id).changes === 1;
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes === 1;
  }
}
