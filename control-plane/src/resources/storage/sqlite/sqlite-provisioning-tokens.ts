import type { Db } from './open-database.js';
import type { ProvisioningTokenRecord, ProvisioningTokenRecords } from '../stores/provisioning-token-records.js';

interface TokenRow {
  id: string;
  parent: string;
  create_time: string;
  expire_time: string;
  max_uses: number | null;
  uses: number;
}

const COLUMNS = 'lower(hex(substr(secret_sha256, 1, 8))) AS id, parent, create_time, expire_time, max_uses, uses';

const recordOf = (row: TokenRow): ProvisioningTokenRecord => ({
  id: row.id,
  parent: row.parent,
  createTime: row.create_time,
  expireTime: row.expire_time,
  maxUses: row.max_uses,
  uses: row.uses,
});

/** Provisioning tokens in the SQLite table provisioning_tokens (migration version 3). */
export class SqliteProvisioningTokens implements ProvisioningTokenRecords {
  private readonly add;
  private readonly byHash;
  private readonly consumeOne;
  private readonly live;
  private readonly removeById;
  private readonly expired;

  constructor(db: Db) {
    this.add = db.prepare<[Uint8Array, string, string, string, number | null]>(
      'INSERT INTO provisioning_tokens(secret_sha256, parent, create_time, expire_time, max_uses) VALUES (?, ?, ?, ?, ?)',
    );
    this.byHash = db.prepare<[Uint8Array], TokenRow>(
      `SELECT ${COLUMNS} FROM provisioning_tokens WHERE secret_sha256 = ?`,
    );
    this.consumeOne = db.prepare<[Uint8Array, string]>(
      `UPDATE provisioning_tokens SET uses = uses + 1
       WHERE secret_sha256 = ? AND expire_time > ? AND (max_uses IS NULL OR uses < max_uses)`,
    );
    this.live = db.prepare<[string, string], TokenRow>(
      `SELECT ${COLUMNS} FROM provisioning_tokens WHERE parent = ? AND expire_time > ?
       ORDER BY create_time, secret_sha256`,
    );
    this.removeById = db.prepare<[string, Buffer]>(
      'DELETE FROM provisioning_tokens WHERE parent = ? AND substr(secret_sha256, 1, 8) = ?',
    );
    this.expired = db.prepare<[string]>('DELETE FROM provisioning_tokens WHERE expire_time <= ?');
  }

  insert(
    secretSha256: Uint8Array,
    token: { parent: string; createTime: string; expireTime: string; maxUses: number | null },
  ): void {
    this.add.run(secretSha256, token.parent, token.createTime, token.expireTime, token.maxUses);
  }

  bySecret(secretSha256: Uint8Array): ProvisioningTokenRecord | undefined {
    const row = this.byHash.get(secretSha256);
    return row && recordOf(row);
  }

  consume(secretSha256: Uint8Array, now: string): boolean {
    return this.consumeOne.run(secretSha256, now).changes === 1;
  }

  ofParent(parent: string, now: string): ProvisioningTokenRecord[] {
    return this.live.all(parent, now).map(recordOf);
  }

  remove(parent: string, id: string): boolean {
    return this.removeById.run(parent, Buffer.from(id, 'hex')).changes > 0;
  }

  purgeExpired(now: string): void {
    this.expired.run(now);
  }
}
