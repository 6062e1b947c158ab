import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open-database.js';

export type ChangeOp = 'put' | 'delete';

/** One committed change of one resource, as kept in the change log and delivered to watchers. */
export interface Change {
  seq: number;
  plural: string;
  name: string;
  op: ChangeOp;
  /** the stored document before the change (only known for live changes and for deletes from the log) */
  before: Record<string, unknown> | null;
  /** the stored document after the change; null for deletes */
  after: Record<string, unknown> | null;
  time: string;
}

/**
 * A change as the log keeps it: which resource changed and how. A put keeps no document (the resource table
 * holds its current one, and writing every document twice would double the cost of each write); a delete
 * keeps the deleted document, which is nowhere else.
 */
export interface LoggedChange {
  seq: number;
  name: string;
  op: ChangeOp;
  /** the deleted document (deletes only) */
  deleted: Record<string, unknown> | null;
  time: string;
}

interface ChangeRow {
  seq: number;
  name: string;
  op: ChangeOp;
  doc: string | null;
  time: string;
}

/** Rows per INSERT when the buffer is written (largest first; a remainder takes the smaller ones). */
const ROWS_PER_INSERT = [256, 32, 4, 1] as const;
const COLUMNS = 6;

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
    db.exec('CREATE INDEX IF NOT EXISTS change_log_by_time ON change_log(time)');
    // an earlier version looked up a resource's previous document by name
    db.exec('DROP INDEX IF EXISTS change_log_by_name');
    this.since = db.prepare<[string, number, number], ChangeRow>(
      'SELECT seq, name, op, doc, time FROM change_log WHERE plural = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.sinceTime = db.prepare<[string, string], { seq: number }>(
      'SELECT COALESCE(MIN(seq) - 1, (SELECT COALESCE(MAX(seq), 0) FROM change_log)) AS seq FROM change_log WHERE plural = ? AND time >= ?',
    );
    this.prune = db.prepare<[number]>('DELETE FROM change_log WHERE seq <= ?');
    this.bounds = db.prepare<[], { oldest: number | null; newest: number | null }>(
      "SELECT MIN(seq) AS oldest, (SELECT seq FROM sqlite_sequence WHERE name = 'change_log') AS newest FROM change_log",
    );
  }

  /**
   * Appends inside the caller's transaction (written by the next `flush`); returns the new sequence number.
   * `deleted`: a delete's document.
   */
  append(plural: string, name: string, op: ChangeOp, deleted: Record<string, unknown> | null, time: string): number {
    const seq = this.head() + 1;
    const doc = op === 'delete' && deleted !== null ? JSON.stringify(deleted) : null;
    this.buffered.push(seq, plural, name, op, doc, time);
    this.knownHead = seq;
    if (this.buffered.length >= ROWS_PER_INSERT[0] * COLUMNS) this.flush();
    return seq;
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
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.db.prepare<unknown[]>(
        `INSERT OR FAIL INTO change_log(seq, plural, name, op, doc, time) VALUES ${values}`,
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
      time: row.time,
    }));
  }

  /** The position just before the first change of a kind at or after `time`. */
  positionAt(plural: string, time: string): number {
    this.flush();
    return this.sinceTime.get(plural, time)?.seq ?? 0;
  }
}
