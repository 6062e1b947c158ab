import type { FilterSchema } from '@outpost/shared';
import type { ChangeLog } from '../../change-log.js';
import type { ResourceTable } from '../../resource-table.js';
import type { Storage } from '../storage.js';
import { PgChangeLog } from './pg-change-log.js';
import { migratePostgres } from './pg-migrations.js';
import { numberedParams } from './pg-sql.js';
import { PgTable } from './pg-table.js';
import { SyncPostgres } from './sync-postgres.js';
import type { PgResult } from './sync-postgres.js';

/** A statement with `?` parameters, as the engine writes them. */
export interface Sql {
  sql: string;
  params?: readonly unknown[];
}

/**
 * The engine's storage in a PostgreSQL database (`postgres://…`), through one synchronous connection (see
 * SyncPostgres). A transaction's BEGIN goes out with its first statement (a transaction that runs none costs no
 * round trip); a failed statement leaves the transaction unusable until it, or the savepoint around the failure,
 * is rolled back, as PostgreSQL does.
 */
export class PgStorage implements Storage {
  readonly kind = 'postgres';
  private readonly pg: SyncPostgres;
  private depth = 0;
  private savepoints = 0;
  private beginPending = false;
  private aborted = false;
  private transactions = 0;

  constructor(readonly url: string) {
    this.pg = new SyncPostgres(url);
    try {
      migratePostgres(this);
    } catch (err) {
      this.pg.close();
      throw err;
    }
  }

  openTable(plural: string, filterSchema: FilterSchema): ResourceTable {
    return new PgTable(this, plural, filterSchema);
  }

  openChangeLog(retain?: number): ChangeLog {
    return new PgChangeLog(this, retain);
  }

  /** Which transaction runs now: a new number for each (0 outside, and before the first). */
  get transactionNumber(): number {
    return this.depth > 0 ? this.transactions : 0;
  }

  get inTransaction(): boolean {
    return this.depth > 0 && !this.aborted;
  }

  /** Runs statements in order in one round trip (inside the transaction, when one is open). */
  run(statements: readonly Sql[]): PgResult[] {
    const converted = statements.map((s) => ({ sql: numberedParams(s.sql), params: s.params ?? [] }));
    if (this.beginPending) {
      this.beginPending = false;
      converted.unshift({ sql: 'BEGIN', params: [] });
      return this.send(converted).slice(1);
    }
    return this.send(converted);
  }

  query(sql: string, params: readonly unknown[] = []): PgResult {
    return this.run([{ sql, params }])[0]!;
  }

  transaction<R>(fn: () => R): R {
    if (this.depth > 0) throw new Error('a transaction is already open');
    this.depth = 1;
    this.transactions++;
    this.beginPending = true;
    this.aborted = false;
    try {
      const result = fn();
      if (this.beginPending) this.beginPending = false;
      else this.send([{ sql: 'COMMIT', params: [] }]);
      return result;
    } catch (err) {
      if (this.beginPending) this.beginPending = false;
      else this.send([{ sql: 'ROLLBACK', params: [] }]);
      throw err;
    } finally {
      this.depth = 0;
      this.aborted = false;
    }
  }

  savepoint<R>(fn: () => R): R {
    if (this.depth === 0) return this.transaction(fn);
    if (this.aborted) throw new Error('the transaction was abandoned after a failed statement');
    const name = `sp${++this.savepoints}`;
    this.run([{ sql: `SAVEPOINT ${name}` }]);
    this.depth++;
    try {
      const result = fn();
      this.run([{ sql: `RELEASE SAVEPOINT ${name}` }]);
      return result;
    } catch (err) {
      this.send([
        { sql: `ROLLBACK TO SAVEPOINT ${name}`, params: [] },
        { sql: `RELEASE SAVEPOINT ${name}`, params: [] },
      ]);
      this.aborted = false;
      throw err;
    } finally {
      this.depth--;
    }
  }

  close(): void {
    this.pg.close();
  }

  private send(statements: { sql: string; params: readonly unknown[] }[]): PgResult[] {
    try {
      return this.pg.run(statements);
    } catch (err) {
      if (this.depth > 0) this.aborted = true;
      throw err;
    }
  }
}
