import { SQL_FUNCTIONS } from '../sql/sql-functions.js';
import type { FilterSchema } from '@outpost/shared';
import type { Db } from './open-database.js';
import type { ChangeLog } from '../../change-log.js';
import type { ResourceTable } from '../../resource-table.js';
import type { Storage } from '../storage.js';
import { SqliteChangeLog } from './sqlite-change-log.js';
import { SqliteTable } from './sqlite-table.js';
import { migrateSqlite } from './sqlite-migrations.js';

/** The engine's storage in one SQLite database (better-sqlite3), opened with openDatabase. */
export class SqliteStorage implements Storage {
  readonly kind = 'sqlite';

  constructor(readonly db: Db) {
    for (const fn of SQL_FUNCTIONS) db.function(fn.name, { deterministic: true }, fn.implementation);
    migrateSqlite(db);
  }

  openTable(plural: string, filterSchema: FilterSchema): ResourceTable {
    return new SqliteTable(this.db, plural, filterSchema);
  }

  openChangeLog(retain?: number): ChangeLog {
    return new SqliteChangeLog(this.db, retain);
  }

  transaction<R>(fn: () => R): R {
    return this.db.transaction(fn).immediate();
  }

  savepoint<R>(fn: () => R): R {
    return this.db.transaction(fn)();
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  close(): void {
    this.db.close();
  }
}
