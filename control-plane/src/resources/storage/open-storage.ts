import { existsSync, renameSync } from 'node:fs';
import { importPreviousSideFile } from './previous-side-file.js';
import type { SideFileRows } from './previous-side-file.js';
import { openDatabase } from './sqlite/open-database.js';
import type { Db } from './sqlite/open-database.js';
import { startWalCheckpointer } from './sqlite/wal-checkpointer.js';
import type { CommitCheckpoints, WalCheckpointer } from './sqlite/wal-checkpointer.js';
import { PgStorage } from './postgres/pg-storage.js';
import { SqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage } from './storage.js';

/** The SQLite database of a SQLite storage (tests fill it up to see the server on a full disk). */
export type SqliteDatabase = Db;

/** Where `--database` keeps everything: a SQLite file, or a PostgreSQL database. */
export type StorageLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export interface OpenedStorage {
  storage: Storage;
  /** SQLite: the worker that checkpoints the log of large commits (ResourceEngine's `checkpoints` option) */
  checkpoints?: CommitCheckpoints;
  /** Stops what was started for the storage and closes it. */
  close(): Promise<void>;
}

/** The side file of an earlier release, imported into PostgreSQL and renamed (see OpenStorageOptions). */
export interface SideFileImported {
  file: string;
  renamedTo: string;
  rows: SideFileRows;
}

export interface OpenStorageOptions {
  /**
   * PostgreSQL: `<data-dir>/outpost.db`, where releases before schema version 2 kept API keys, device credentials,
   * provisioning tokens and metrics history. The upgrade from version 1 to 2 imports it in its transaction, and the
   * file is then renamed `<file>.imported` (the schema version keeps a rename that did not happen from importing
   * twice).
   */
  previousSideFile?: string;
  onSideFileImported?: (imported: SideFileImported) => void;
  /** called when `previousSideFile` exists but the database was not at version 1 (new, or upgraded already) */
  onSideFileNotImported?: (file: string) => void;
  /** called with a SQLite database as soon as it is open, before anything is written to it */
  onSqliteOpened?: (db: SqliteDatabase) => void;
  onCheckpointError?: (message: string) => void;
}

/**
 * Opens the store `--database` chose, migrated to the newest schema: everything the control plane keeps is in
 * it (resources, change log, and the services' stores: API keys, device credentials, provisioning tokens,
 * metrics history). SQLite comes with its WAL checkpointer; PostgreSQL needs no file in the data folder.
 */
export function openStorage(location: StorageLocation, options: OpenStorageOptions = {}): OpenedStorage {
  if (location.kind === 'postgres') {
    const storage = openPostgres(location.url, options);
    return { storage, close: () => Promise.resolve(storage.close()) };
  }
  const db = openDatabase(location.file);
  let checkpointer: WalCheckpointer | undefined;
  try {
    options.onSqliteOpened?.(db);
    checkpointer = startWalCheckpointer(db, location.file, options.onCheckpointError);
    const started = checkpointer;
    const storage = new SqliteStorage(db); // migrates: may refuse a database newer than this code
    const close = async (): Promise<void> => {
      await started.stop();
      db.close();
    };
    return { storage, checkpoints: started, close };
  } catch (err) {
    void checkpointer?.stop();
    db.close();
    throw err;
  }
}

/** PostgreSQL, migrated; an upgrade to version 2 imports the side file of the releases before it (see options). */
function openPostgres(url: string, options: OpenStorageOptions): PgStorage {
  const sideFile = options.previousSideFile;
  if (sideFile === undefined) return new PgStorage(url);
  let rows: SideFileRows | undefined;
  // a new database (made by version 1 just now) had no release that kept a side file for it
  let created = false;
  const storage = new PgStorage(url, {
    migrationSteps: {
      1: () => (created = true),
      2: (migrating) => (rows = created ? undefined : importPreviousSideFile(migrating, sideFile)),
    },
  });
  if (rows === undefined) {
    if (existsSync(sideFile)) options.onSideFileNotImported?.(sideFile);
    return storage;
  }
  const renamedTo = `${sideFile}.imported`;
  try {
    renameSync(sideFile, renamedTo);
  } catch (err) {
    storage.close(); // imported and committed: the next start finds version 2 and does not import it again
    throw err;
  }
  options.onSideFileImported?.({ file: sideFile, renamedTo, rows });
  return storage;
}
