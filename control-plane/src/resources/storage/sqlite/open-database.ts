import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the control plane's SQLite file.
 * WAL with synchronous=FULL: a committed write survives a crash or power loss.
 * Temporary storage in memory: a savepoint (ResourceEngine.batch runs each call in one) keeps the pages it
 * changes in a sub-journal, which would otherwise spill to a temporary file beyond 64 KiB.
 * A 64 MiB page cache and reads through a memory map (the OS page cache, shared and reclaimable): a write that
 * touches tens of thousands of rows (a plan change recomputing every limit) would otherwise read most pages
 * from the file again, often more than once.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 1073741824');
  return db;
}
