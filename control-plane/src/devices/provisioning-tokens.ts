import type {
  ProvisioningTokenRecord,
  ProvisioningTokenRecords,
} from '../resources/storage/stores/provisioning-token-records.js';
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

/**
 * Project tokens that let a new device register itself (`devices:register`); stored hashed, expiring, optionally
 * limited to a number of registrations, in the engine's store (SQLite or PostgreSQL). Expired tokens are purged
 * by every write (a token created, a device registered); reads only leave them out, so that listing works on a
 * full disk.
 */
export class ProvisioningTokens {
  constructor(
    private readonly records: ProvisioningTokenRecords,
    private readonly now: () => Date = () => new Date(),
  ) {}

  create(parent: string, ttlSeconds: number, maxUses?: number): { token: string } & ProvisioningToken {
    this.purge();
    const token = newSecret('opt');
    const created = this.now();
    const expireTime = new Date(created.getTime() + ttlSeconds * 1000).toISOString();
    const hash = hashSecret(token);
    this.records.insert(hash, { parent, createTime: created.toISOString(), expireTime, maxUses: maxUses ?? null });
    return { token, ...tokenOf(this.records.bySecret(hash)!) };
  }

  /** The token's record when it may register a device now, else why not. */
  verify(token: string): ProvisioningToken | TokenRefusal {
    const record = this.records.bySecret(hashSecret(token));
    if (!record || record.expireTime <= this.now().toISOString()) return 'unknown or expired';
    if (record.maxUses !== null && record.uses >= record.maxUses) return 'used up';
    return tokenOf(record);
  }

  /**
   * Counts one registration; false when the token may register no more. Called in the registration's
   * transaction, so that a registration that fails uses nothing up.
   */
  consume(token: string): boolean {
    this.purge();
    return this.records.consume(hashSecret(token), this.now().toISOString());
  }

  /** The tokens of `parent` that have not expired, oldest first. */
  list(parent: string): ProvisioningToken[] {
    return this.records.ofParent(parent, this.now().toISOString()).map(tokenOf);
  }

  /** Deletes the token `id` of `parent`; false when there is none. */
  revoke(parent: string, id: string): boolean {
    return this.records.remove(parent, id);
  }

  private purge(): void {
    this.records.purgeExpired(this.now().toISOString());
  }
}

function tokenOf(record: ProvisioningTokenRecord): ProvisioningToken {
  const { id, parent, createTime, expireTime, maxUses, uses } = record;
  return { id, parent, createTime, expireTime, ...(maxUses === null ? {} : { maxUses }), uses };
}
