import { renameSync } from 'node:fs';
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
   * provisioning tokens and metrics history. The upgrade to version 2 imports it in its transaction, and the file
   * is then renamed `<file>.imported` (the schema version keeps a rename that did not happen from importing twice).
   */
  previousSideFile?: string;
  onSideFileImported?: (imported: SideFileImported) => void;
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
    const sideFile = options.previousSideFile;
    let rows: SideFileRows | undefined;
    const storage = new PgStorage(
      location.url,
      sideFile === undefined
        ? {}
        : { migrationSteps: { 2: (migrating) => (rows = importPreviousSideFile(migrating, sideFile)) } },
    );
    if (sideFile !== undefined && rows !== undefined) {
      const renamedTo = `${sideFile}.imported`;
      renameSync(sideFile, renamedTo);
      options.onSideFileImported?.({ file: sideFile, renamedTo, rows });
    }
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
