import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** A real SQLite file in a fresh temporary folder; `reopen` opens the same file again, as a restart would. */
export function tempDatabase(): { db: Database.Database; path: string; reopen(): Database.Database; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-iam-'));
  const path = join(dir, 'outpost.db');
  const opened: Database.Database[] = [];
  const open = (): Database.Database => {
    const db = new Database(path);
    opened.push(db);
    return db;
  };
  return {
    db: open(),
    path,
    reopen: open,
    cleanup: () => {
      for (const db of opened) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
