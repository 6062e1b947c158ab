import type { FilterSchema } from '@outpost/shared';
import type { ChangeLog } from '../../change-log.js';
import type { ResourceTable } from '../../resource-table.js';
import type { Storage, TableOptions } from '../storage.js';
import { PgChangeLog } from './pg-change-log.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './pg-migrations.js';
import type { MigrationSteps } from './pg-migrations.js';
import type { Migration } from '../migrations.js';
import { numberedParams } from './pg-sql.js';
import { PgTable } from './pg-table.js';
import { WriteQueue } from './pg-write-queue.js';
import type { ErrorMapper, ResultReceiver, RowShape, Sql } from './pg-write-queue.js';
import { PostgresError, SyncPostgres } from './sync-postgres.js';
import type { PgOutcome, PgResult } from './sync-postgres.js';

export type { Sql } from './pg-write-queue.js';

/**
 * Row writes queued in a transaction beyond which they go out ahead, without waiting: PostgreSQL writes them while
 * the caller prepares the next (a plan change writes some 53,000 documents).
 */
export const ROWS_SENT_AHEAD = 2000;

export interface PgStorageOptions {
  /** the schema's steps to bring the database to (tests make databases of earlier versions); default: all */
  migrations?: readonly Migration[];
  /** work of the steps beyond their statements (see MigrationSteps) */
  migrationSteps?: MigrationSteps;
}

/** How the failures of the statements of a request that went out are reported, and who takes their results. */
interface SentRequest {
  mappers: readonly (ErrorMapper | undefined)[];
  receivers: readonly (ResultReceiver | undefined)[];
}

/**
 * The engine's storage in a PostgreSQL database (`postgres://…`), through one synchronous connection (see
 * SyncPostgres), where every statement waited for is a round trip. So a transaction's writes whose results
 * nobody reads (updates, removals, the change log) are queued (`defer`, `deferRow`) and go out together with
 * the next statement that is waited for, or with the COMMIT; BEGIN goes out with the first of them (a
 * transaction that runs none costs no round trip). Once many row writes are queued they go out ahead, not waited
 * for (see ROWS_SENT_AHEAD). A queued write that fails is reported by the next statement that is waited for,
 * still inside its transaction or savepoint (the RELEASE of a savepoint is waited for). A failed
 * statement leaves the transaction unusable until it, or the savepoint around the failure, is rolled back, as
 * PostgreSQL does.
 */
export class PgStorage implements Storage {
  readonly kind = 'postgres';
  private readonly pg: SyncPostgres;
  private readonly queue = new WriteQueue();
  private depth = 0;
  private savepoints = 0;
  /** requests sent to the server since the start (tells whether a BEGIN or a SAVEPOINT went out since) */
  private sends = 0;
  /** of those, the ones waited for */
  private waits = 0;
  /** requests of this transaction sent ahead, not waited for yet */
  private sentAhead: SentRequest[] = [];
  private aborted = false;
  private transactions = 0;

  constructor(
    readonly url: string,
    options: PgStorageOptions = {},
  ) {
    this.pg = new SyncPostgres(url);
    try {
      migratePostgres(this, options.migrations ?? POSTGRES_MIGRATIONS, options.migrationSteps);
    } catch (err) {
      this.pg.close();
      throw err;
    }
  }

  openTable(plural: string, filterSchema: FilterSchema, options: TableOptions = {}): ResourceTable {
    return new PgTable(this, plural, filterSchema, options);
  }

  openChangeLog(retain?: number): ChangeLog {
    return new PgChangeLog(this, retain);
  }

  /** Round trips to the server so far: what a write costs on this store, counted (see the tests). */
  get roundTrips(): number {
    return this.waits;
  }

  /** Which transaction runs now: a new number for each (0 outside, and before the first). */
  get transactionNumber(): number {
    return this.depth > 0 ? this.transactions : 0;
  }

  get inTransaction(): boolean {
    return this.depth > 0 && !this.aborted;
  }

  /** Runs statements in order in one round trip, after the queued writes (inside the transaction, when one is open). */
  run(statements: readonly Sql[]): PgResult[] {
    return this.send(statements);
  }

  query(sql: string, params: readonly unknown[] = []): PgResult {
    return this.run([{ sql, params }])[0]!;
  }

  /** In a transaction: queues a write whose result is not needed (outside one it runs now). */
  defer(statement: Sql, mapError?: ErrorMapper): void {
    if (this.depth === 0) this.mapped(() => this.run([statement]), [mapError]);
    else {
      this.queue.push(statement, mapError);
      this.sendAheadWhenMany();
    }
  }

  /**
   * In a transaction: queues a read whose result is wanted later, to go out with the next round trip. Returns how
   * to get its result: sends the queue first when it has not gone out yet; undefined when it went out with a
   * statement that failed (or outside a transaction).
   */
  deferRead(statement: Sql): () => PgResult | undefined {
    if (this.depth === 0) return () => undefined;
    let result: PgResult | undefined;
    let asked = false;
    this.queue.push(statement, undefined, (received) => (result = received));
    const transaction = this.transactions;
    return () => {
      // not answered yet: still queued, or sent ahead and its answer not taken yet
      if (result === undefined && !asked && this.transactionNumber === transaction && !this.aborted) this.send([]);
      asked = true;
      return result;
    };
  }

  /** In a transaction: queues the write of row `id`, to go out with the queued writes of other rows of its shape. */
  deferRow<R>(shape: RowShape<R>, id: number, row: R): void {
    if (this.depth === 0) this.mapped(() => this.run(shape.statements([row])), [shape.mapError]);
    else {
      this.queue.pushRow(shape, id, row);
      this.sendAheadWhenMany();
    }
  }

  transaction<R>(fn: () => R): R {
    if (this.depth > 0) throw new Error('a transaction is already open');
    this.depth = 1;
    this.transactions++;
    this.aborted = false;
    this.queue.push({ sql: 'BEGIN' });
    const sendsBefore = this.sends;
    try {
      const result = fn();
      if (this.sends !== sendsBefore || this.queue.length > 1) this.send([{ sql: 'COMMIT' }]);
      else this.queue.truncate(0);
      return result;
    } catch (err) {
      this.queue.truncate(0);
      if (this.sends !== sendsBefore) this.sendAfterFailure([{ sql: 'ROLLBACK' }]);
      throw err;
    } finally {
      this.depth = 0;
      this.aborted = false;
      this.sentAhead = [];
    }
  }

  savepoint<R>(fn: () => R): R {
    if (this.depth === 0) return this.transaction(fn);
    if (this.aborted) throw new Error('the transaction was abandoned after a failed statement');
    const name = `sp${++this.savepoints}`;
    const mark = this.queue.length;
    const sendsBefore = this.sends;
    this.queue.push({ sql: `SAVEPOINT ${name}` });
    this.depth++;
    try {
      const result = fn();
      // waited for: a queued write of `fn` that fails is `fn`'s failure, undone alone
      if (this.sends !== sendsBefore || this.queue.length > mark + 1) this.send([{ sql: `RELEASE SAVEPOINT ${name}` }]);
      else this.queue.truncate(mark);
      return result;
    } catch (err) {
      if (this.sends === sendsBefore) {
        this.queue.truncate(mark); // nothing of the savepoint reached the server
      } else {
        this.queue.truncate(0); // everything still queued came after the SAVEPOINT
        try {
          this.sendAfterFailure([{ sql: `ROLLBACK TO SAVEPOINT ${name}` }, { sql: `RELEASE SAVEPOINT ${name}` }]);
        } catch {
          throw err; // the savepoint never began (a write queued before it failed): the transaction is abandoned
        }
      }
      this.aborted = false;
      throw err;
    } finally {
      this.depth--;
    }
  }

  close(): void {
    this.pg.close();
  }

  /**
   * The queued writes, then `statements`, in one round trip that also takes what became of the requests sent ahead;
   * the results of `statements`. The first failure of any is thrown.
   */
  private send(statements: readonly Sql[]): PgResult[] {
    const queued = this.queue.take();
    const requests = [...this.sentAhead, queued];
    this.sentAhead = [];
    const outcomes = this.settle(() => this.pg.settle(numbered([...queued.statements, ...statements])));
    for (const [i, outcome] of outcomes.entries()) {
      const { mappers, receivers } = requests[i]!;
      if (outcome.error) {
        if (this.depth > 0) this.aborted = true;
        throw mappedError(outcome.error, mappers);
      }
      receivers.forEach((receive, r) => receive?.(outcome.results[r]!));
    }
    return (outcomes[outcomes.length - 1]!.results ?? []).slice(queued.statements.length);
  }

  /** Sends the queued writes without waiting, once they are many (in a transaction). */
  private sendAheadWhenMany(): void {
    if (this.queue.rows < ROWS_SENT_AHEAD) return;
    const queued = this.queue.take();
    this.pg.post(numbered(queued.statements));
    this.sends++;
    this.sentAhead.push(queued);
  }

  /**
   * After a failure: `statements` (a rollback) in one round trip, after the requests sent ahead, whose own failures
   * are not this one's (that failure is being reported already).
   */
  private sendAfterFailure(statements: readonly Sql[]): void {
    this.sentAhead = [];
    const outcomes = this.settle(() => this.pg.settle(numbered(statements)));
    const last = outcomes[outcomes.length - 1]!;
    if (last.error) throw last.error;
  }

  /** One waited round trip; a failure to get the answers (a timeout) abandons the transaction. */
  private settle(exchange: () => PgOutcome[]): PgOutcome[] {
    this.sends++;
    this.waits++;
    try {
      return exchange();
    } catch (err) {
      if (this.depth > 0) this.aborted = true;
      throw err;
    }
  }

  /** Runs `statements`, reporting the failure of statement i as `mappers[i]` says (when it says). */
  private mapped(run: () => PgResult[], mappers: readonly (ErrorMapper | undefined)[]): PgResult[] {
    try {
      return run();
    } catch (err) {
      throw mappedError(err, mappers);
    }
  }
}

const numbered = (statements: readonly Sql[]): { sql: string; params: readonly unknown[] }[] =>
  statements.map((s) => ({ sql: numberedParams(s.sql), params: s.params ?? [] }));

/** `err` as `mappers[i]` reports the failure of statement i (when it says). */
function mappedError(err: unknown, mappers: readonly (ErrorMapper | undefined)[]): unknown {
  const mapError = err instanceof PostgresError ? mappers[err.statementIndex] : undefined;
  return mapError && err instanceof PostgresError ? mapError(err) : err;
}
