/** An API key as stored: its grants as JSON text, its secret only as the sha256. */
export interface ApiKeyRecord {
  id: string;
  displayName: string;
  grantsJson: string;
  secretSha256: Uint8Array;
  createTime: string;
}

/** The API keys of the IAM service, in the engine's store (SQLite or PostgreSQL). */
export interface ApiKeyRecords {
  get(id: string): ApiKeyRecord | undefined;
  /** Oldest first (by create time, then id). */
  list(): ApiKeyRecord[];
  /** Stores the key unless one with its id exists; answers whether it did. */
  insertIfAbsent(record: ApiKeyRecord): boolean;
  /** Replaces a key's secret and grants; false when there is no such key. */
  replaceSecret(id: string, secretSha256: Uint8Array, grantsJson: string): boolean;
  /** False when there was no such key. */
  delete(id: string): boolean;
}
