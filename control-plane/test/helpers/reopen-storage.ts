import { openDatabase } from '../../src/resources/storage/sqlite/open-database.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { SqliteStorage } from '../../src/resources/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/resources/storage/storage.js';

/** A second connection to the database of `storage`, as a restarted control plane (or another replica) opens it. */
export function reopenStorage(storage: Storage): Storage {
  if (storage instanceof PgStorage) return new PgStorage(storage.url);
  if (storage instanceof SqliteStorage) return new SqliteStorage(openDatabase(storage.db.name));
  throw new Error(`cannot reopen a ${storage.kind} storage`);
}
