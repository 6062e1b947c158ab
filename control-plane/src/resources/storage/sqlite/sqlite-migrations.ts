import type { Db } from './open-database.js';
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
  {
    version: 3,
    description:
      "the services' stores behind the engine (EngineStores): API keys, device credentials, provisioning tokens, " +
      'metrics history; the tables of releases that made them on their own are kept with their rows',
    statements: [
      `CREATE TABLE IF NOT EXISTS iam_api_keys (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        grants_json TEXT NOT NULL,
        secret_sha256 BLOB NOT NULL,
        create_time TEXT NOT NULL
      ) STRICT`,
      `CREATE TABLE IF NOT EXISTS device_credentials (
        device TEXT PRIMARY KEY,
        secret_sha256 BLOB NOT NULL UNIQUE,
        create_time TEXT NOT NULL
      )`,
      `CREATE TABLE IF NOT EXISTS device_public_keys (
        device TEXT PRIMARY KEY,
        public_key_pem TEXT NOT NULL,
        create_time TEXT NOT NULL
      )`,
      `CREATE TABLE IF NOT EXISTS provisioning_tokens (
        secret_sha256 BLOB PRIMARY KEY,
        parent TEXT NOT NULL,
        create_time TEXT NOT NULL,
        expire_time TEXT NOT NULL,
        max_uses INTEGER,
        uses INTEGER NOT NULL DEFAULT 0
      )`,
      'CREATE INDEX IF NOT EXISTS provisioning_tokens_by_expiry ON provisioning_tokens(expire_time)',
      `CREATE TABLE IF NOT EXISTS device_metric_points (
        device TEXT NOT NULL,
        resolution_ms INTEGER NOT NULL,
        bucket INTEGER NOT NULL,
        count INTEGER NOT NULL,
        cpu_sum REAL NOT NULL, cpu_max REAL NOT NULL,
        mem_used_sum REAL NOT NULL, mem_total_max REAL NOT NULL,
        storage_used_sum REAL NOT NULL, storage_total_max REAL NOT NULL,
        temp_sum REAL NOT NULL, temp_count INTEGER NOT NULL,
        load_sum REAL NOT NULL, load_count INTEGER NOT NULL,
        uptime_max REAL NOT NULL,
        PRIMARY KEY (device, resolution_ms, bucket)
      ) WITHOUT ROWID`,
      'CREATE INDEX IF NOT EXISTS device_metric_points_age ON device_metric_points (resolution_ms, bucket)',
    ],
  },
  {
    version: 4,
    description:
      "each value in the resource kinds' side tables (r_<plural>_values) with its row's name, which a list by " +
      'one label reads in name order; the index in that order comes with each kind as it is registered',
    statements: [],
  },
];

/** Brings the database to the newest schema version, each step in a transaction of its own. */
export function migrateSqlite(db: Db, migrations: readonly Migration[] = SQLITE_MIGRATIONS): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of pendingMigrations(migrations, current)) {
    db.transaction(() => {
      if (migration.version === 1) upgradeUnversionedChangeLog(db);
      if (migration.version === 3) addTokenUseCounts(db);
      if (migration.version === 4) nameSideTableRows(db);
      for (const statement of migration.statements) db.exec(statement);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/** Releases older still than version 1 logged neither changed paths nor previous values, and looked up by name. */
function upgradeUnversionedChangeLog(db: Db): void {
  if (!addMissingColumns(db, 'change_log', { paths: 'TEXT', prior: 'TEXT' })) return;
  db.exec('DROP INDEX IF EXISTS change_log_by_name');
}

/** Provisioning tokens of releases before use counts: theirs stay unlimited. */
function addTokenUseCounts(db: Db): void {
  addMissingColumns(db, 'provisioning_tokens', { max_uses: 'INTEGER', uses: 'INTEGER NOT NULL DEFAULT 0' });
}

/**
 * The side tables of earlier versions get their rows' names from the kinds' tables. A value whose row is gone
 * (none should be) keeps an empty name: it joins no row, so no list shows it.
 */
function nameSideTableRows(db: Db): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'r\\_%\\_values' ESCAPE '\\'")
    .pluck()
    .all() as string[];
  for (const sideTable of tables) {
    const kindTable = sideTable.slice(0, -'_values'.length);
    const sideColumns = columnsOf(db, sideTable);
    if (!['row_id', 'path', 'value'].every((c) => sideColumns.has(c)) || sideColumns.has('row_name')) continue;
    if (!columnsOf(db, kindTable).has('name')) continue;
    db.exec(`ALTER TABLE ${sideTable} ADD COLUMN row_name TEXT NOT NULL DEFAULT ''`);
    db.exec(`UPDATE ${sideTable} SET row_name = k.name FROM ${kindTable} k WHERE k.id = ${sideTable}.row_id`);
  }
}

const columnsOf = (db: Db, table: string): Set<string> =>
  new Set(db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]);

/** Adds the columns an existing table lacks; false when there is no such table (the migration then creates it). */
function addMissingColumns(db: Db, table: string, columns: Readonly<Record<string, string>>): boolean {
  const names = columnsOf(db, table);
  if (names.size === 0) return false;
  for (const [name, declaration] of Object.entries(columns)) {
    if (!names.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${declaration}`);
  }
  return true;
}
