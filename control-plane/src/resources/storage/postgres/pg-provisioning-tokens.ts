import type { ProvisioningTokenRecord, ProvisioningTokenRecords } from '../stores/provisioning-token-records.js';
import type { PgStorage } from './pg-storage.js';

const COLUMNS =
  "encode(substring(secret_sha256 from 1 for 8), 'hex'), parent, create_time, expire_time, max_uses, uses";

const recordOf = (row: unknown[]): ProvisioningTokenRecord => ({
  id: row[0] as string,
  parent: row[1] as string,
  createTime: row[2] as string,
  expireTime: row[3] as string,
  maxUses: row[4] as number | null,
  uses: row[5] as number,
});

/** Provisioning tokens in the PostgreSQL table provisioning_tokens (migration version 2). */
export class PgProvisioningTokens implements ProvisioningTokenRecords {
  constructor(private readonly storage: PgStorage) {}

  insert(
    secretSha256: Uint8Array,
    token: { parent: string; createTime: string; expireTime: string; maxUses: number | null },
  ): void {
    this.storage.query(
      `INSERT INTO provisioning_tokens(secret_sha256, parent, create_time, expire_time, max_uses)
       VALUES (?, ?, ?, ?, ?::integer)`,
      [secretSha256, token.parent, token.createTime, token.expireTime, token.maxUses],
    );
  }

  bySecret(secretSha256: Uint8Array): ProvisioningTokenRecord | undefined {
    const row = this.storage.query(`SELECT ${COLUMNS} FROM provisioning_tokens WHERE secret_sha256 = ?`, [secretSha256])
      .rows[0];
    return row && recordOf(row);
  }

  consume(secretSha256: Uint8Array, now: string): boolean {
    const updated = this.storage.query(
      `UPDATE provisioning_tokens SET uses = uses + 1
       WHERE secret_sha256 = ? AND expire_time > ? AND (max_uses IS NULL OR uses < max_uses)`,
      [secretSha256, now],
    );
    return updated.rowCount === 1;
  }

  ofParent(parent: string, now: string): ProvisioningTokenRecord[] {
    return this.storage
      .query(
        `SELECT ${COLUMNS} FROM provisioning_tokens WHERE parent = ? AND expire_time > ?
         ORDER BY create_time, secret_sha256`,
        [parent, now],
      )
      .rows.map(recordOf);
  }

  remove(parent: string, id: string): boolean {
    const removed = this.storage.query(
      "DELETE FROM provisioning_tokens WHERE parent = ? AND substring(secret_sha256 from 1 for 8) = decode(?, 'hex')",
      [parent, id],
    );
    return removed.rowCount > 0;
  }

  purgeExpired(now: string): void {
    this.storage.query('DELETE FROM provisioning_tokens WHERE expire_time <= ?', [now]);
  }
}
