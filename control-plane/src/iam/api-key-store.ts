import { invalidArgument, notFound } from '@outpost/shared';
import type { ApiKeyRecord, ApiKeyRecords } from '../resources/storage/stores/api-key-records.js';
import { z } from 'zod';
import { EVERY_PERMISSION, EVERY_SCOPE, GrantSchema, StoredGrantSchema, type Grant } from './grant.js';
import type { Principal } from './principal.js';
import { hashSecret, keyIdOfSecret, newKeyId, newSecret, secretMatches } from './secret.js';

export const ADMIN_KEY_ID = 'admin';
export const MIN_ADMIN_SECRET_LENGTH = 32;

/** An API key as the API shows it; the secret is never part of it. */
export interface ApiKey {
  /** 'apiKeys/<id>' */
  name: string;
  displayName: string;
  grants: Grant[];
  createTime: string;
}

export interface NewApiKey {
  displayName: string;
  grants: readonly Grant[];
}

/** The body of a create call: a caller names permissions and scopes, never `grantedThrough`. */
export const NewApiKeySchema = z.object({
  displayName: z.string().trim().min(1, 'must not be empty').max(256),
  grants: z.array(GrantSchema).min(1, 'needs at least one grant').max(100),
});

const StoredNewApiKeySchema = NewApiKeySchema.extend({
  grants: z.array(StoredGrantSchema).min(1, 'needs at least one grant').max(100),
});

export interface ApiKeyStoreOptions {
  now?: () => Date;
}

const GrantsSchema = z.array(StoredGrantSchema);

/** Told of a revoked key: through this process ('here') or through another replica ('elsewhere'). */
export type KeyRevocationListener = (keyName: string, origin: 'here' | 'elsewhere') => void;

/** API keys in the engine's store (SQLite or PostgreSQL), each stored as the sha256 of its secret. */
export class ApiKeyStore {
  private readonly now: () => Date;
  private readonly revokeListeners = new Set<KeyRevocationListener>();

  constructor(
    private readonly records: ApiKeyRecords,
    options: ApiKeyStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Creates a key; the returned secret is the only copy there will ever be. */
  create(input: NewApiKey): { apiKey: ApiKey; secret: string } {
    const parsed = StoredNewApiKeySchema.safeParse(input);
    if (!parsed.success)
      throw invalidArgument(`invalid API key: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    const id = newKeyId();
    const secret = newSecret(id);
    const record = this.recordOf(id, parsed.data.displayName, parsed.data.grants, secret);
    if (!this.records.insertIfAbsent(record)) throw new Error(`a new key's id ${id} is taken`);
    return { apiKey: toApiKey(record), secret };
  }

  list(): ApiKey[] {
    return this.records.list().map(toApiKey);
  }

  /** Whether the key named 'apiKeys/<id>' exists (is not revoked). */
  has(keyName: string): boolean {
    return this.records.get(keyName.slice('apiKeys/'.length)) !== undefined;
  }

  /** Throws NOT_FOUND for unknown and revoked keys. */
  get(id: string): ApiKey {
    const record = this.records.get(id);
    if (!record) throw notFound(`apiKeys/${id} not found`);
    return toApiKey(record);
  }

  /** Deletes the key: its secret stops working at once. Throws NOT_FOUND when there is no such key. */
  revoke(id: string): void {
    if (!this.records.delete(id)) throw notFound(`apiKeys/${id} not found`);
    for (const listener of this.revokeListeners) listener(`apiKeys/${id}`, 'here');
  }

  /** Tells the listeners of a key that another replica revoked (its record is already gone from the shared store). */
  revokedElsewhere(keyName: string): void {
    for (const listener of this.revokeListeners) listener(keyName, 'elsewhere');
  }

  /**
   * Calls `listener` with a key's name ('apiKeys/<id>') once it is revoked, here or (see revokedElsewhere) on
   * another replica; the function returned stops it.
   */
  onRevoke(listener: KeyRevocationListener): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  /** The principal whose secret this is, or null for unknown and revoked secrets. */
  authenticate(secret: string): Principal | null {
    if (secret === '') return null;
    const id = keyIdOfSecret(secret);
    // Secrets we generated name their key; the admin secret may be any string set by OUTPOST_ADMIN_KEY.
    const candidates = id !== undefined && id !== ADMIN_KEY_ID ? [id, ADMIN_KEY_ID] : [ADMIN_KEY_ID];
    for (const candidate of candidates) {
      const record = this.records.get(candidate);
      if (record && secretMatches(secret, record.secretSha256)) {
        const key = toApiKey(record);
        return { name: key.name, displayName: key.displayName, grants: key.grants };
      }
    }
    return null;
  }

  /**
   * Makes sure the admin key (`apiKeys/admin`, grant `*` on `*`) exists. With `adminKey` that exact secret
   * is registered, or the stored one rotated to it. Without, a key is generated only when there is no admin
   * key yet, and its secret returned so the caller can show it once. Each step is one conditional write, so
   * replicas starting together on one database agree on a single admin key.
   */
  ensureBootstrapAdminKey(adminKey?: string): { created: boolean; secret?: string } {
    const adminGrants: Grant[] = [{ permission: EVERY_PERMISSION, scope: EVERY_SCOPE }];
    if (adminKey === undefined) {
      const secret = newSecret(ADMIN_KEY_ID);
      const created = this.records.insertIfAbsent(this.recordOf(ADMIN_KEY_ID, 'admin', adminGrants, secret));
      return created ? { created, secret } : { created };
    }
    if (adminKey.length < MIN_ADMIN_SECRET_LENGTH) {
      throw invalidArgument(`the admin key must be at least ${MIN_ADMIN_SECRET_LENGTH} characters`);
    }
    const record = this.recordOf(ADMIN_KEY_ID, 'admin', adminGrants, adminKey);
    // an admin key revoked between the two writes is registered again on the next turn
    for (;;) {
      if (this.records.insertIfAbsent(record)) return { created: true };
      if (this.records.replaceSecret(ADMIN_KEY_ID, record.secretSha256, record.grantsJson)) return { created: false };
    }
  }

  private recordOf(id: string, displayName: string, grants: readonly Grant[], secret: string): ApiKeyRecord {
    return {
      id,
      displayName,
      grantsJson: JSON.stringify(
        grants.map(({ permission, scope, grantedThrough }) => ({
          permission,
          scope,
          ...(grantedThrough?.length ? { grantedThrough } : {}),
        })),
      ),
      secretSha256: hashSecret(secret),
      createTime: this.now().toISOString(),
    };
  }
}

/** The stdout line that shows a generated admin secret, or undefined when nothing is to be shown. */
export function adminKeyAnnouncement(result: { secret?: string }): string | undefined {
  return result.secret === undefined ? undefined : `Admin API key (shown once): ${result.secret}`;
}

function toApiKey(record: ApiKeyRecord): ApiKey {
  return {
    name: `apiKeys/${record.id}`,
    displayName: record.displayName,
    grants: GrantsSchema.parse(JSON.parse(record.grantsJson)),
    createTime: record.createTime,
  };
}
