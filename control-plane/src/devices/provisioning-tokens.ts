import type { Db } from '../db/open-database.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** What the API shows of a provisioning token; the token itself is shown once, when it is created. */
export interface ProvisioningToken {
  /** 16 hex digits naming the token in list and revoke (the start of its hash: it reveals nothing of it) */
  id: string;
  /** projects/{p}/regions/{r}: where devices registering with it are created */
  parent: string;
  createTime: string;
  expireTime: string;
  /** registrations it allows in all; absent: any number until it expires */
  maxUses?: number;
  /** registrations made with it */
  uses: number;
}

/** Why a token does not register a device. */
export type TokenRefusal = 'unknown or expired' | 'used up';

interface TokenRow {
  id: string;
  parent: string;
  create_time: string;
  expire_time: string;
  max_uses: number | null;
  uses: number;
}

const COLUMNS = 'lower(hex(substr(secret_sha256, 1, 8))) AS id, parent, create_time, expire_time, max_uses, uses';

/**
 * Project tokens that let a new device register itself (`devices:register`); stored hashed, expiring, optionally
 * limited to a number of registrations. Expired tokens are purged by every write (a token created, a device
 * registered); reads only leave them out, so that listing works on a full disk.
 */
export class ProvisioningTokens {
  private readonly insert;
  private readonly byHash;
  private readonly consumeOne;
  private readonly ofParent;
  private readonly removeById;
  private readonly purgeExpired;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS provisioning_tokens (
      secret_sha256 BLOB PRIMARY KEY,
      parent TEXT NOT NULL,
      create_time TEXT NOT NULL,
      expire_time TEXT NOT NULL
    )`);
    // tables of earlier versions lack the use counts: their tokens stay unlimited
    const columns = new Set(
      db
        .prepare<[], { name: string }>('PRAGMA table_info(provisioning_tokens)')
        .all()
        .map((c) => c.name),
    );
    if (!columns.has('max_uses')) db.exec('ALTER TABLE provisioning_tokens ADD COLUMN max_uses INTEGER');
    if (!columns.has('uses')) db.exec('ALTER TABLE provisioning_tokens ADD COLUMN uses INTEGER NOT NULL DEFAULT 0');
    db.exec('CREATE INDEX IF NOT EXISTS provisioning_tokens_by_expiry ON provisioning_tokens(expire_time)');

    this.insert = db.prepare<[Buffer, string, string, string, number | null]>(
      'INSERT INTO provisioning_tokens(secret_sha256, parent, create_time, expire_time, max_uses) VALUES (?, ?, ?, ?, ?)',
    );
    this.byHash = db.prepare<[Buffer], TokenRow>(`SELECT ${COLUMNS} FROM provisioning_tokens WHERE secret_sha256 = ?`);
    this.consumeOne = db.prepare<[Buffer, string]>(
      `UPDATE provisioning_tokens SET uses = uses + 1
       WHERE secret_sha256 = ? AND expire_time > ? AND (max_uses IS NULL OR uses < max_uses)`,
    );
    this.ofParent = db.prepare<[string, string], TokenRow>(
      `SELECT ${COLUMNS} FROM provisioning_tokens WHERE parent = ? AND expire_time > ?
       ORDER BY create_time, secret_sha256`,
    );
    this.removeById = db.prepare<[string, Buffer]>(
      'DELETE FROM provisioning_tokens WHERE parent = ? AND substr(secret_sha256, 1, 8) = ?',
    );
    this.purgeExpired = db.prepare<[string]>('DELETE FROM provisioning_tokens WHERE expire_time <= ?');
  }

  create(parent: string, ttlSeconds: number, maxUses?: number): { token: string } & ProvisioningToken {
    this.purge();
    const token = newSecret('opt');
    const created = this.now();
    const expireTime = new Date(created.getTime() + ttlSeconds * 1000).toISOString();
    const hash = hashSecret(token);
    this.insert.run(hash, parent, created.toISOString(), expireTime, maxUses ?? null);
    return { token, ...tokenOf(this.byHash.get(hash)!) };
  }

  /** The token's record when it may register a device now, else why not. */
  verify(token: string): ProvisioningToken | TokenRefusal {
    const row = this.byHash.get(hashSecret(token));
    if (!row || row.expire_time <= this.now().toISOString()) return 'unknown or expired';
    if (row.max_uses !== null && row.uses >= row.max_uses) return 'used up';
    return tokenOf(row);
  }

  /**
   * Counts one registration; false when the token may register no more. Called in the registration's
   * transaction, so that a registration that fails uses nothing up.
   */
  consume(token: string): boolean {
    this.purge();
    return this.consumeOne.run(hashSecret(token), this.now().toISOString()).changes === 1;
  }

  /** The tokens of `parent` that have not expired, oldest first. */
  list(parent: string): ProvisioningToken[] {
    return this.ofParent.all(parent, this.now().toISOString()).map(tokenOf);
  }

  /** Deletes the token `id` of `parent`; false when there is none. */
  revoke(parent: string, id: string): boolean {
    return this.removeById.run(parent, Buffer.from(id, 'hex')).changes > 0;
  }

  private purge(): void {
    this.purgeExpired.run(this.now().toISOString());
  }
}

function tokenOf(row: TokenRow): ProvisioningToken {
  return {
    id: row.id,
    parent: row.parent,
    createTime: row.create_time,
    expireTime: row.expire_time,
    ...(row.max_uses === null ? {} : { maxUses: row.max_uses }),
    uses: row.uses,
  };
}
