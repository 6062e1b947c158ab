/** A provisioning token as stored (its secret only as the sha256); times are RFC 3339 text. */
export interface ProvisioningTokenRecord {
  /** 16 hex digits: the start of the sha256 */
  id: string;
  parent: string;
  createTime: string;
  expireTime: string;
  maxUses: number | null;
  uses: number;
}

/** The devices service's provisioning tokens, in the engine's store. `now` is RFC 3339 text, as the times are. */
export interface ProvisioningTokenRecords {
  insert(
    secretSha256: Uint8Array,
    token: { parent: string; createTime: string; expireTime: string; maxUses: number | null },
  ): void;
  bySecret(secretSha256: Uint8Array): ProvisioningTokenRecord | undefined;
  /** Counts one use of a token that has not expired at `now` nor been used up; false when there is none such. */
  consume(secretSha256: Uint8Array, now: string): boolean;
  /** The tokens of `parent` not expired at `now`, oldest first. */
  ofParent(parent: string, now: string): ProvisioningTokenRecord[];
  /** Deletes the token of `parent` whose id this is; false when there is none. */
  remove(parent: string, id: string): boolean;
  /** Deletes every token expired at `now`. */
  purgeExpired(now: string): void;
}
