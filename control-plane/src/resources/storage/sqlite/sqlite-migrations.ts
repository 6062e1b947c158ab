import type { Db } from '../../../db/open-database.js';
import { pendingMigrations } from '../migrations.js';
import type { Migration } from '../migrations.js';

/**
 * The SQLite schema's versions, kept in PRAGMA user_version. Version 1 is the layout of the releases before
 * versions were recorded (their databases say 0, and step 1 finds its tables there already). The tables of the
 * resource kinds follow their filter schemas as each kind is registered (see SqliteTable), not these steps.
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'the change log',
    statements: [
      `CREATE TABLE IF NOT EXISTS change_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        plural TEXT NOT NULL,
        name TEXT NOT NULL,
        op TEXT NOT NULL,
        doc TEXT,
        time TEXT NOT NULL,
        paths TEXT,
        prior TEXT
      )`,
      'CREATE INDEX IF NOT EXISTS change_log_by_time ON change_log(time)',
    ],
  },
  {
    version: 2,
    description: "the change log by kind: a watcher's replay of one kind reads only that kind's entries",
    statements: ['CREATE INDEX IF NOT EXISTS change_log_by_plural ON change_log(plural, seq)'],
  },
];

/** Brings the database to the newest schema version, each step in a transaction of its own. */
export function migrateSqlite(db: Db, migrations: readonly Migration[] = SQLITE_MIGRATIONS): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of pendingMigrations(migrations, current)) {
    db.transaction(() => {
      if (migration.version === 1) upgradeUnversionedChangeLog(db);
      for (const statement of migration.statements) db.exec(statement);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/** Releases older still than version 1 logged neither changed paths nor previous values, and looked up by name. */
function upgradeUnversionedChangeLog(db: Db): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('change_log')").all() as { name: string }[];
  if (columns.length === 0) return;
  const names = new Set(columns.map((c) => c.name));
  if (!names.has('paths')) db.exec('ALTER TABLE change_log ADD COLUMN paths TEXT');
  if (!names.has('prior')) db.exec('ALTER TABLE change_log ADD COLUMN prior TEXT');
  db.exec('DROP INDEX IF EXISTS change_log_by_name');
}
