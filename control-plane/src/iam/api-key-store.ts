import type { Db } from '../db/open-database.js';
import { invalidArgument, notFound } from '@outpost/shared';
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

interface ApiKeyRow {
  id: string;
  display_name: string;
  grants_json: string;
  secret_sha256: Buffer;
  create_time: string;
}

const GrantsSchema = z.array(StoredGrantSchema);

/** API keys in SQLite, each stored as the sha256 of its secret. */
export class ApiKeyStore {
  private readonly now: () => Date;
  private readonly revokeListeners = new Set<(keyName: string) => void>();

  constructor(
    private readonly db: Db,
    options: ApiKeyStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    db.exec(`CREATE TABLE IF NOT EXISTS iam_api_keys (
      id TEXT PRIMARY KEY,
      display_name TEXT NOT NULL,
      grants_json TEXT NOT NULL,
      secret_sha256 BLOB NOT NULL,
      create_time TEXT NOT NULL
    ) STRICT`);
  }

  /** Creates a key; the returned secret is the only copy there will ever be. */
  create(input: NewApiKey): { apiKey: ApiKey; secret: string } {
    const parsed = StoredNewApiKeySchema.safeParse(input);
    if (!parsed.success)
      throw invalidArgument(`invalid API key: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    const id = newKeyId();
    const secret = newSecret(id);
    const row = this.insert(id, parsed.data.displayName, parsed.data.grants, secret);
    return { apiKey: toApiKey(row), secret };
  }

  list(): ApiKey[] {
    return this.db.prepare<[], ApiKeyRow>('SELECT * FROM iam_api_keys ORDER BY create_time, id').all().map(toApiKey);
  }

  /** Throws NOT_FOUND for unknown and revoked keys. */
  get(id: string): ApiKey {
    const row = this.row(id);
    if (!row) throw notFound(`apiKeys/${id} not found`);
    return toApiKey(row);
  }

  /** Deletes the key: its secret stops working at once. Throws NOT_FOUND when there is no such key. */
  revoke(id: string): void {
    const { changes } = this.db.prepare('DELETE FROM iam_api_keys WHERE id = ?').run(id);
    if (changes === 0) throw notFound(`apiKeys/${id} not found`);
    for (const listener of this.revokeListeners) listener(`apiKeys/${id}`);
  }

  /** Calls `listener` with a key's name ('apiKeys/<id>') once it is revoked; the function returned stops it. */
  onRevoke(listener: (keyName: string) => void): () => void {
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
      const row = this.row(candidate);
      if (row && secretMatches(secret, row.secret_sha256)) {
        const key = toApiKey(row);
        return { name: key.name, displayName: key.displayName, grants: key.grants };
      }
    }
    return null;
  }

  /**
   * Makes sure the admin key (`apiKeys/admin`, grant `*` on `*`) exists. With `adminKey` that exact secret
   * is registered, or the stored one rotated to it. Without, a key is generated only when there is no admin
   * key yet, and its secret returned so the caller can show it once.
   */
  ensureBootstrapAdminKey(adminKey?: string): { created: boolean; secret?: string } {
    const adminGrants: Grant[] = [{ permission: EVERY_PERMISSION, scope: EVERY_SCOPE }];
    return this.db.transaction(() => {
      const existing = this.row(ADMIN_KEY_ID);
      if (adminKey !== undefined) {
        if (adminKey.length < MIN_ADMIN_SECRET_LENGTH) {
          throw invalidArgument(`the admin key must be at least ${MIN_ADMIN_SECRET_LENGTH} characters`);
        }
        if (!existing) {
          this.insert(ADMIN_KEY_ID, 'admin', adminGrants, adminKey);
          return { created: true };
        }
        this.db
          .prepare('UPDATE iam_api_keys SET secret_sha256 = ?, grants_json = ? WHERE id = ?')
          .run(hashSecret(adminKey), JSON.stringify(adminGrants), ADMIN_KEY_ID);
        return { created: false };
      }
      if (existing) return { created: false };
      const secret = newSecret(ADMIN_KEY_ID);
      this.insert(ADMIN_KEY_ID, 'admin', adminGrants, secret);
      return { created: true, secret };
    })();
  }

  private row(id: string): ApiKeyRow | undefined {
    return this.db.prepare<[string], ApiKeyRow>('SELECT * FROM iam_api_keys WHERE id = ?').get(id);
  }

  private insert(id: string, displayName: string, grants: readonly Grant[], secret: string): ApiKeyRow {
    const row: ApiKeyRow = {
      id,
      display_name: displayName,
      grants_json: JSON.stringify(
        grants.map(({ permission, scope, grantedThrough }) => ({
          permission,
          scope,
          ...(grantedThrough?.length ? { grantedThrough } : {}),
        })),
      ),
      secret_sha256: hashSecret(secret),
      create_time: this.now().toISOString(),
    };
    this.db
      .prepare(
        `INSERT INTO iam_api_keys (id, display_name, grants_json, secret_sha256, create_time)
         VALUES (@id, @display_name, @grants_json, @secret_sha256, @create_time)`,
      )
      .run(row);
    return row;
  }
}

/** The stdout line that shows a generated admin secret, or undefined when nothing is to be shown. */
export function adminKeyAnnouncement(result: { secret?: string }): string | undefined {
  return result.secret === undefined ? undefined : `Admin API key (shown once): ${result.secret}`;
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    name: `apiKeys/${row.id}`,
    displayName: row.display_name,
    grants: GrantsSchema.parse(JSON.parse(row.grants_json)),
    createTime: row.create_time,
  };
}
