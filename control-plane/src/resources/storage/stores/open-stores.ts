import { PgStorage } from '../postgres/pg-storage.js';
import { pgStores } from '../postgres/pg-stores.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { sqliteStores } from '../sqlite/sqlite-stores.js';
import type { Storage } from '../storage.js';
import type { EngineStores } from './engine-stores.js';

/** The services' stores kept by `storage`, in its database (their tables come with its schema migrations). */
export function openStores(storage: Storage): EngineStores {
  if (storage instanceof SqliteStorage) return sqliteStores(storage.db);
  if (storage instanceof PgStorage) return pgStores(storage);
  throw new Error(`no service stores for the ${storage.kind} storage`);
}
