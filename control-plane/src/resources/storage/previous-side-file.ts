import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { PgStorage } from './postgres/pg-storage.js';

/** Rows imported from the side file, by table. */
export type SideFileRows = Readonly<Record<string, number>>;

interface ImportedTable {
  name: string;
  columns: readonly string[];
  /** what a column the file's table lacks is read as (tables of releases before it was added) */
  missing?: Readonly<Record<string, string>>;
}

/** The services' tables the releases before PostgreSQL schema version 2 kept in the side file, as they made them. */
const SIDE_FILE_TABLES: readonly ImportedTable[] = [
  { name: 'iam_api_keys', columns: ['id', 'display_name', 'grants_json', 'secret_sha256', 'create_time'] },
  { name: 'device_credentials', columns: ['device', 'secret_sha256', 'create_time'] },
  { name: 'device_public_keys', columns: ['device', 'public_key_pem', 'create_time'] },
  {
    name: 'provisioning_tokens',
    columns: ['secret_sha256', 'parent', 'create_time', 'expire_time', 'max_uses', 'uses'],
    missing: { max_uses: 'NULL', uses: '0' }, // tokens from before use counts stay unlimited
  },
  {
    name: 'device_metric_points',
    columns: [
      'device',
      'resolution_ms',
      'bucket',
      'count',
      'cpu_sum',
      'cpu_max',
      'mem_used_sum',
      'mem_total_max',
      'storage_used_sum',
      'storage_total_max',
      'temp_sum',
      'temp_count',
      'load_sum',
      'load_count',
      'uptime_max',
    ],
  },
];

/** Parameters per INSERT, below PostgreSQL's limit of 65,535. */
const PARAMETERS_PER_INSERT = 30_000;

/**
 * Copies the API keys, device credentials and public keys, provisioning tokens and metrics history that releases
 * before PostgreSQL schema version 2 kept in `<data-dir>/outpost.db` into the tables version 2 creates, inside the
 * caller's transaction (the migration's). Undefined when there is no such file; throws when it cannot be read, so
 * that the start is refused rather than every key and device credential silently lost.
 */
export function importPreviousSideFile(storage: PgStorage, file: string): SideFileRows | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    // read-write, so that closing it folds a write-ahead log the old release left into the file
    db = new Database(file, { fileMustExist: true });
    const rows: Record<string, number> = {};
    for (const table of SIDE_FILE_TABLES) rows[table.name] = copyTable(db, storage, table);
    return rows;
  } catch (err) {
    if (db === undefined || isSqliteError(err)) {
      throw new Error(
        `cannot read ${file}, where the control plane kept API keys, device credentials, provisioning tokens and ` +
          `metrics history before they moved into PostgreSQL (${err instanceof Error ? err.message : String(err)}); ` +
          'make it readable, or move it away to start without those records',
        { cause: err },
      );
    }
    throw err;
  } finally {
    db?.close();
  }
}

function copyTable(db: Database.Database, storage: PgStorage, table: ImportedTable): number {
  const present = new Set(db.prepare(`SELECT name FROM pragma_table_info('${table.name}')`).pluck().all() as string[]);
  if (present.size === 0) return 0;
  const selected = table.columns.map((c) => (present.has(c) ? c : `${table.missing?.[c] ?? 'NULL'} AS ${c}`));
  const perInsert = Math.floor(PARAMETERS_PER_INSERT / table.columns.length);
  const placeholders = `(${table.columns.map(() => '?').join(', ')})`;
  const insert = (batch: unknown[][]): void => {
    storage.run([
      {
        sql: `INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES ${batch.map(() => placeholders).join(', ')}`,
        params: batch.flat(),
      },
    ]);
  };
  let copied = 0;
  let batch: unknown[][] = [];
  for (const row of db
    .prepare(`SELECT ${selected.join(', ')} FROM ${table.name}`)
    .raw()
    .iterate()) {
    batch.push(row as unknown[]);
    if (batch.length === perInsert) {
      insert(batch);
      copied += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) insert(batch);
  return copied + batch.length;
}

const isSqliteError = (err: unknown): boolean => err instanceof Database.SqliteError;
