import type { Statement } from 'better-sqlite3';
import type { FilterSchema } from '@outpost/shared';
import type { Db } from '../db/open-database.js';
import { changedMemberPaths, encodePaths, priorFilterValues } from './change-facts.js';

export type ChangeOp = 'put' | 'delete';

/** One committed change of one resource, as delivered to watchers. */
export interface Change {
  seq: number;
  plural: string;
  name: string;
  op: ChangeOp;
  /** the stored document before the change; null for creates */
  before: Record<string, unknown> | null;
  /** the stored document after the change; null for deletes */
  after: Record<string, unknown> | null;
  /** the changed leaf paths of an update (as changedPaths lists them); undefined for creates and deletes */
  changed: readonly string[] | undefined;
  /** about how many bytes the document (after, or before for a delete) takes as JSON */
  bytes: number;
  time: string;
}

/**
 * How a change is logged: `create`, `update` and `delete`; `put` is a create or update logged by an earlier
 * version, which kept neither changed paths nor previous values.
 */
export type LoggedOp = 'create' | 'update' | 'delete' | 'put';

/**
 * A change as the log keeps it. A create or update keeps no document (the resource table holds the current one,
 * and writing every document twice would double the cost of each write); an update keeps its changed paths and
 * the previous values of the filterable fields it changed (see change-facts.ts), a delete the deleted document,
 * which is nowhere else. Paths and previous values are left encoded: a replay decodes only those it needs.
 */
export interface LoggedChange {
  seq: number;
  name: string;
  op: LoggedOp;
  /** the deleted document (deletes only) */
  deleted: Record<string, unknown> | null;
  /** updates: the changed paths, as encodePaths wrote them */
  paths: string | null;
  /** updates: JSON of the PriorValue list, null when no filterable field changed */
  prior: string | null;
  time: string;
}

/** What `append` tells the engine about the change it logged. */
export interface Appended {
  seq: number;
  /** the changed paths of an update */
  changed: readonly string[] | undefined;
}

interface ChangeRow {
  seq: number;
  name: string;
  op: LoggedOp;
  doc: string | null;
  paths: string | null;
  prior: string | null;
  time: string;
}

/** Rows per INSERT when the buffer is written (largest first; a remainder takes the smaller ones). */
const ROWS_PER_INSERT = [256, 32, 4, 1] as const;
const COLUMNS = 8;

/**
 * The store's change log: a monotonic sequence of every write. A watcher's resume token is a position in it.
 * It keeps the newest `retain` entries; older positions answer "too old" and the watcher gets a hard reset.
 *
 * Appends are numbered at once but buffered and written many rows per INSERT (one statement per row was a
 * large part of a write touching tens of thousands of resources). The engine writes the buffer before each
 * commit and each savepoint (`flush`), and drops it on a rollback (`rollBack`).
 */
export class ChangeLog {
  private readonly inserts = new Map<number, Statement<unknown[]>>();
  private readonly since;
  private readonly sinceTime;
  private readonly prune;
  private readonly bounds;
  /** the filterable fields of each kind, whose previous values an update logs */
  private readonly schemas = new Map<string, FilterSchema>();
  /** appended rows not yet written, COLUMNS values each */
  private buffered: unknown[] = [];
  private appendsSincePrune = 0;
  /** the newest sequence number, kept in memory; undefined after a rollback until read again */
  private knownHead: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly retain = 200_000,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS change_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      plural TEXT NOT NULL,
      name TEXT NOT NULL,
      op TEXT NOT NULL,
      doc TEXT,
      time TEXT NOT NULL
    )`);
    // added later: an earlier version's rows have neither (op 'put')
    const columns = new Set(
      (db.prepare("SELECT name FROM pragma_table_info('change_log')").all() as { name: string }[]).map((c) => c.name),
    );
    if (!columns.has('paths')) db.exec('ALTER TABLE change_log ADD COLUMN paths TEXT');
    if (!columns.has('prior')) db.exec('ALTER TABLE change_log ADD COLUMN prior TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS change_log_by_time ON change_log(time)');
    // an earlier version looked up a resource's previous document by name
    db.exec('DROP INDEX IF EXISTS change_log_by_name');
    this.since = db.prepare<[string, number, number], ChangeRow>(
      'SELECT seq, name, op, doc, paths, prior, time FROM change_log WHERE plural = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.sinceTime = db.prepare<[string, string], { seq: number }>(
      'SELECT COALESCE(MIN(seq) - 1, (SELECT COALESCE(MAX(seq), 0) FROM change_log)) AS seq FROM change_log WHERE plural = ? AND time >= ?',
    );
    this.prune = db.prepare<[number]>('DELETE FROM change_log WHERE seq <= ?');
    this.bounds = db.prepare<[], { oldest: number | null; newest: number | null }>(
      "SELECT MIN(seq) AS oldest, (SELECT seq FROM sqlite_sequence WHERE name = 'change_log') AS newest FROM change_log",
    );
  }

  /** Tells the log which fields of a kind are filterable (before its first append). */
  describe(plural: string, schema: FilterSchema): void {
    this.schemas.set(plural, schema);
  }

  /**
   * Logs a change inside the caller's transaction (written by the next `flush`): a create when `before` is
   * null, a delete when `after` is.
   */
  append(
    plural: string,
    name: string,
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    time: string,
  ): Appended {
    const seq = this.head() + 1;
    let changed: string[] | undefined;
    if (after === null) {
      this.buffered.push(
        seq,
        plural,
        name,
        'delete',
        before === null ? null : JSON.stringify(before),
        null,
        null,
        time,
      );
    } else if (before === null) {
      this.buffered.push(seq, plural, name, 'create', null, null, null, time);
    } else {
      changed = changedMemberPaths(before, after);
      const schema = this.schemas.get(plural);
      const prior = schema ? priorFilterValues(before, changed, schema) : [];
      const priorText = prior.length === 0 ? null : JSON.stringify(prior);
      this.buffered.push(seq, plural, name, 'update', null, encodePaths(changed), priorText, time);
    }
    this.knownHead = seq;
    if (this.buffered.length >= ROWS_PER_INSERT[0] * COLUMNS) this.flush();
    return { seq, changed };
  }

  /** Writes the buffered appends (inside the caller's transaction). */
  flush(): void {
    const values = this.buffered;
    if (values.length === 0) return;
    this.buffered = [];
    let at = 0;
    for (const rows of ROWS_PER_INSERT) {
      const statement = this.insertOf(rows);
      for (; values.length - at >= rows * COLUMNS; at += rows * COLUMNS) {
        statement.run(...values.slice(at, at + rows * COLUMNS));
      }
    }
    this.appendsSincePrune += values.length / COLUMNS;
    if (this.appendsSincePrune >= 1000) {
      this.appendsSincePrune = 0;
      if (this.knownHead !== undefined && this.knownHead > this.retain) this.prune.run(this.knownHead - this.retain);
    }
  }

  /**
   * OR FAIL: a failing row ends the statement without undoing the rows before it (the caller's transaction
   * is rolled back anyway), which spares SQLite a statement journal of every page the statement touches.
   */
  private insertOf(rows: number): Statement<unknown[]> {
    let statement = this.inserts.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.db.prepare<unknown[]>(
        `INSERT OR FAIL INTO change_log(seq, plural, name, op, doc, paths, prior, time) VALUES ${values}`,
      );
      this.inserts.set(rows, statement);
    }
    return statement;
  }

  /** After a rollback: what was buffered is gone, and so are the sequence numbers it used. */
  rollBack(): void {
    this.buffered = [];
    this.knownHead = undefined;
  }

  /** The newest sequence number written so far (0 when empty). */
  head(): number {
    this.knownHead ??= this.bounds.get()?.newest ?? 0;
    return this.knownHead;
  }

  /** True when every change after `seq` is still in the log. */
  covers(seq: number): boolean {
    this.flush();
    const { oldest, newest } = this.bounds.get() ?? { oldest: null, newest: null };
    if (seq > (newest ?? 0)) return false;
    return oldest === null || seq >= oldest - 1;
  }

  /** Changes of one resource kind after `seq`, oldest first. */
  read(plural: string, afterSeq: number, limit: number): LoggedChange[] {
    this.flush();
    return this.since.all(plural, afterSeq, limit).map((row) => ({
      seq: row.seq,
      name: row.name,
      op: row.op,
      deleted: row.op === 'delete' && row.doc !== null ? (JSON.parse(row.doc) as Record<string, unknown>) : null,
      paths: row.paths,
      prior: row.prior,
      time: row.time,
    }));
  }

  /** The position just before the first change of a kind at or after `time`. */
  positionAt(plural: string, time: string): number {
    this.flush();
    return this.sinceTime.get(plural, time)?.seq ?? 0;
  }
}
