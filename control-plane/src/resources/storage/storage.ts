import type { FilterSchema } from '@outpost/shared';
import type { ChangeLog } from '../change-log.js';
import type { ResourceTable } from '../resource-table.js';

/** How a kind's rows are written, for a store that lays its tables out for it. */
export interface TableOptions {
  /**
   * Most of its rows are rewritten together, in one transaction (a plan change recomputes every dependent limit,
   * pool and assignment). PostgreSQL then keeps room for a new version of every row on its page, so that such a
   * write stays heap-only (no index entry) for all of them, not only for the first few of each page.
   */
  rewrittenTogether?: boolean;
}

/**
 * Where the resource engine keeps its records: one table per resource kind and one change log, written in
 * transactions. Only the engine uses it (services go through resource handles). Every call is synchronous,
 * as the engine is: a transaction's statements run one after the other and transactions never interleave.
 * Two implementations: SQLite (storage/sqlite, the default) and PostgreSQL (storage/postgres).
 */
export interface Storage {
  readonly kind: 'sqlite' | 'postgres';
  /** Opens (creating or migrating) the table of one resource kind. */
  openTable(plural: string, filterSchema: FilterSchema, options?: TableOptions): ResourceTable;
  /** Opens the change log, keeping its newest `retain` entries. */
  openChangeLog(retain?: number): ChangeLog;
  /** Runs `fn` in a write transaction (serialised with every other writer); commits when it returns. */
  transaction<R>(fn: () => R): R;
  /** Inside a transaction: runs `fn` in a savepoint, undone alone when `fn` throws. */
  savepoint<R>(fn: () => R): R;
  /** False once a failure abandoned the whole transaction (nothing more may run in it), or outside one. */
  readonly inTransaction: boolean;
  close(): void;
}
