import type { Db } from '../db/open-database.js';
import { hashSecret, newSecret } from './secret-hash.js';

export interface ProvisioningToken {
  /** projects/{p}/regions/{r}: where devices registering with it are created */
  parent: string;
  createTime: string;
  expireTime: string;
}

/** Project tokens that let a new device register itself (`devices:register`); stored hashed, expiring. */
export class ProvisioningTokens {
  private readonly insert;
  private readonly byHash;

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
    this.insert = db.prepare<[Buffer, string, string, string]>(
      'INSERT INTO provisioning_tokens(secret_sha256, parent, create_time, expire_time) VALUES (?, ?, ?, ?)',
    );
    this.byHash = db.prepare<[Buffer], { parent: string; create_time: string; expire_time: string }>(
      'SELECT parent, create_time, expire_time FROM provisioning_tokens WHERE secret_sha256 = ?',
    );
  }

  create(parent: string, ttlSeconds: number): { token: string } & ProvisioningToken {
    const token = newSecret('opt');
    const created = this.now();
    const expireTime = new Date(created.getTime() + ttlSeconds * 1000).toISOString();
    this.insert.run(hashSecret(token), parent, created.toISOString(), expireTime);
    return { token, parent, createTime: created.toISOString(), expireTime };
  }

  /** The token's record when it exists and has not expired. */
  verify(token: string): ProvisioningToken | undefined {
    const row = this.byHash.get(hashSecret(token));
    if (!row || new Date(row.expire_time) <= this.now()) return undefined;
    return { parent: row.parent, createTime: row.create_time, expireTime: row.expire_time };
  }
}
