import type { ResourceDefinition } from '@outpost/shared';
import type { Db } from './storage/sqlite/open-database.js';
import type { CommitCheckpoints } from './storage/sqlite/wal-checkpointer.js';
import { ChangeBus } from './change-bus.js';
import type { Change, ChangeLog } from './change-log.js';
import { ResourceHandle } from './resource-handle.js';
import type { ResourceRules } from './resource-rules.js';
import type { Doc } from './resource-table.js';
import { SqliteStorage } from './storage/sqlite/sqlite-storage.js';
import type { Coordination } from './storage/coordination.js';
import { openCoordination } from './storage/open-coordination.js';
import type { Storage, TableOptions } from './storage/storage.js';
import type { EngineStores } from './storage/stores/engine-stores.js';
import { openStores } from './storage/stores/open-stores.js';

/** The document type of a definition: its schema's, or Doc for a definition that only knows documents have names. */
export type DocumentOf<T extends Doc & { name: string }> = [keyof T] extends ['name'] ? Doc : T;

interface QueuedCall {
  fn: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface EngineOptions {
  now?: () => Date;
  /** how many change-log entries to keep for watchers to resume from */
  changeLogRetain?: number;
  /** told of transactions that write many resources, whose checkpoint should not hold up their commit */
  checkpoints?: CommitCheckpoints;
}

/**
 * Told after each commit, before its changes are published, of the log positions before and after it: the
 * transaction's own changes are (first, last], and every change up to `first` was committed before it.
 */
export type CommitListener = (first: number, last: number) => void;

/** A transaction writing at least this many resources leaves its checkpoint to `checkpoints`. */
const LARGE_TRANSACTION_WRITES = 2000;

/**
 * The generic resource engine: one storage (SQLite or PostgreSQL), one table per resource kind, one change log.
 * Every write runs in a transaction; committed changes are published to watchers after the commit.
 */
export class ResourceEngine {
  readonly log: ChangeLog;
  readonly bus = new ChangeBus();
  readonly now: () => Date;
  private readonly handles = new Map<string, ResourceHandle>();
  private depth = 0;
  private pending: Change[] = [];
  private afterCommitCalls: (() => void)[] = [];
  private queued: QueuedCall[] = [];
  private readonly commitListeners = new Set<CommitListener>();
  private readonly checkpoints: CommitCheckpoints | undefined;
  /** Where the records are kept: for the engine's own modules, tests and benchmarks; services never use it. */
  readonly storage: Storage;
  /** The services' records that are not resources, in the same store as the resources. */
  readonly stores: EngineStores;
  /** How control planes sharing this store work as replicas (cluster/); undefined on a store of one process. */
  readonly coordination: Coordination | undefined;

  /** `store`: the storage, or a SQLite database (opened with openDatabase) to keep it in. */
  constructor(store: Storage | Db, options: EngineOptions = {}) {
    this.storage = 'openTable' in store ? store : new SqliteStorage(store);
    this.now = options.now ?? (() => new Date());
    this.log = this.storage.openChangeLog(options.changeLogRetain);
    this.stores = openStores(this.storage);
    this.coordination = openCoordination(this.storage);
    this.checkpoints = options.checkpoints;
  }

  /**
   * Registers a resource kind: its handle and its rules see documents as the definition's schema gives them
   * (Doc for a definition without a type of its own). `tableOptions`: how its rows are written (TableOptions).
   */
  register<T extends Doc & { name: string }>(
    def: ResourceDefinition<T>,
    rules: ResourceRules<DocumentOf<NoInfer<T>>> = {},
    tableOptions: TableOptions = {},
  ): ResourceHandle<DocumentOf<T>> {
    if (this.handles.has(def.plural)) throw new Error(`resource ${def.plural} registered twice`);
    const table = this.storage.openTable(def.plural, def.filterSchema, tableOptions);
    this.log.describe(def.plural, def.filterSchema);
    // the engine stores documents that passed `def.schema`: rules and reads of this kind see them as T
    const handle = new ResourceHandle<DocumentOf<T>>(def as ResourceDefinition, table, rules as ResourceRules, {
      transaction: (fn) => this.transaction(fn),
      record: (plural, name, before, after, time, bytes) => this.record(plural, name, before, after, time, bytes),
      log: this.log,
      bus: this.bus,
      now: this.now,
    });
    this.handles.set(def.plural, handle);
    // a derived field that just became filterable: documents stored before it need it (a new table has none)
    if (def.derive && table.addedPaths.length > 0) handle.rederiveStored();
    return handle;
  }

  resource(plural: string): ResourceHandle {
    const handle = this.handles.get(plural);
    if (!handle) throw new Error(`unknown resource ${plural}`);
    return handle;
  }

  all(): ResourceHandle[] {
    return [...this.handles.values()];
  }

  /**
   * Runs `fn` in one storage transaction; changes are published after the commit. A nested call joins the outer
   * transaction (no savepoint: an error must propagate, and the outer transaction is rolled back whole); use
   * `savepoint` where a failure is caught and the outer work goes on.
   */
  transaction<R>(fn: () => R): R {
    if (this.depth > 0) return fn();
    this.depth = 1;
    let result: R;
    let deferred = false;
    const versions = this.tableVersions();
    let first = 0;
    let last = 0;
    try {
      result = this.storage.transaction(() => {
        const start = this.log.openTransaction();
        const value = fn();
        this.log.flush();
        first = start();
        last = this.log.head();
        if (this.checkpoints && this.log.head() - first >= LARGE_TRANSACTION_WRITES) {
          deferred = true;
          this.checkpoints.deferCheckpoint();
        }
        return value;
      });
    } catch (err) {
      this.pending = [];
      this.afterCommitCalls = [];
      this.forgetRolledBack(versions);
      if (deferred) this.checkpoints?.transactionEnded(false);
      throw err;
    } finally {
      this.depth = 0;
    }
    if (deferred) this.checkpoints?.transactionEnded(true);
    const committed = this.pending;
    this.pending = [];
    for (const listener of this.commitListeners) listener(first, last);
    for (const change of committed) this.bus.publish(change);
    const calls = this.afterCommitCalls;
    this.afterCommitCalls = [];
    for (const call of calls) call();
    return result;
  }

  /**
   * Runs `fn` once the current transaction has committed (at once outside a transaction); not at all when it
   * rolls back. For effects outside the database, such as telling other replicas, which must not see a write
   * before it is committed.
   */
  afterCommit(fn: () => void): void {
    if (this.depth === 0) fn();
    else this.afterCommitCalls.push(fn);
  }

  /**
   * Calls `listener` after each commit, before the commit's changes are published (a replica publishes the
   * changes other processes committed before its own first: cluster/watch-follower.ts). Returns the unsubscribe.
   */
  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Group commit. Runs `fn` as a transaction of its own, but together with the other calls made in the same
   * turn of the event loop: at the end of the turn (setImmediate) they run one after the other, in the order
   * they were made, each in a savepoint of one SQLite transaction (a call that throws undoes only its own
   * writes), and that transaction is committed with one fsync. The promise settles only once the commit is
   * durable; when the commit fails, every call of the group fails with its error. Nothing else runs between
   * the calls of a group, so nobody sees their writes before they are committed. `fn` must be synchronous and
   * change nothing outside the database (anything it did would precede the commit). Inside a transaction,
   * `fn` simply joins it.
   */
  batch<R>(fn: () => R): Promise<R> {
    if (this.depth > 0) {
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    return new Promise<R>((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.commitQueued());
      this.queued.push({ fn, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private commitQueued(): void {
    const calls = this.queued;
    this.queued = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.transaction(() => {
        // a call alone needs no savepoint (whose journal copies every page it changes): if it throws, the
        // transaction it would have shared with nobody is undone whole
        if (calls.length === 1) {
          outcomes.push({ ok: true, value: calls[0]!.fn() });
          return;
        }
        for (const call of calls) {
          try {
            outcomes.push({ ok: true, value: this.savepoint(call.fn) });
          } catch (error) {
            if (!this.storage.inTransaction) throw error; // the store abandoned the whole transaction
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const call of calls) call.reject(error);
      return;
    }
    calls.forEach((call, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) call.resolve(outcome.value);
      else call.reject(outcome?.error);
    });
  }

  /** Inside a transaction: runs `fn` so that, if it throws, its writes and changes alone are undone. */
  savepoint<R>(fn: () => R): R {
    if (this.depth === 0) return this.transaction(fn);
    const mark = this.pending.length;
    const callsMark = this.afterCommitCalls.length;
    // what the log holds from before must not be written inside the savepoint, which may be undone
    this.log.flush();
    const versions = this.tableVersions();
    try {
      return this.storage.savepoint(fn);
    } catch (err) {
      this.pending.length = mark;
      this.afterCommitCalls.length = callsMark;
      this.forgetRolledBack(versions);
      throw err;
    }
  }

  private tableVersions(): number[] {
    return [...this.handles.values()].map((handle) => handle.table.version);
  }

  /**
   * After a rollback: the cached change-log head is no longer to be trusted, nor anything read from a table
   * written since `versions` were taken (tables nobody wrote meanwhile hold what they held).
   */
  private forgetRolledBack(versions: readonly number[]): void {
    this.log.rollBack();
    [...this.handles.values()].forEach((handle, i) => {
      if (handle.table.version !== versions[i]) handle.table.invalidate();
    });
  }

  /** `bytes`: the length of the document's JSON when the caller has it (watchers bound their backlog by it). */
  private record(
    plural: string,
    name: string,
    before: Doc | null,
    after: Doc | null,
    time = this.now().toISOString(),
    bytes?: number,
  ): number {
    const { seq, changed } = this.log.append(plural, name, before, after, time);
    // transactions are synchronous: nobody can subscribe between this write and its publication
    if (this.bus.subscriberCount(plural) > 0) {
      const op = after === null ? 'delete' : 'put';
      const size = bytes ?? JSON.stringify(after ?? before).length;
      this.pending.push({ seq, plural, name, op, before, after, changed, bytes: size, time });
    }
    return seq;
  }
}
