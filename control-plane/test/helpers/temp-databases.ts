import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openDatabase, type Db } from '../../src/resources/storage/sqlite/open-database.js';

export interface TempDatabase {
  db: Db;
  /** the SQLite file */
  file: string;
}

/**
 * Real SQLite files for the tests of one file (or describe block): each call of the function returned opens
 * a fresh one, as the control plane opens it, in a temporary folder of its own; the folders are removed after
 * the tests. Call it at the top level of a test file or describe block (it registers an afterAll hook).
 */
export function tempDatabases(prefix: string): () => TempDatabase {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    const file = join(dir, 'outpost.db');
    return { db: openDatabase(file), file };
  };
}
