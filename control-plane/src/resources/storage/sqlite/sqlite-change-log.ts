import type { Statement } from 'better-sqlite3';
import type { FilterSchema } from '@outpost/shared';
import type { Db } from './open-database.js';
import { loggedChangeOf, logRowOf } from '../../change-log.js';
import { ChangeShapes } from '../../change-shapes.js';
import type { Appended, ChangeLog, LoggedChange, LoggedOp, LogRow } from '../../change-log.js';

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
 * The change log in SQLite (see ChangeLog). Transactions are serial (BEGIN IMMEDIATE), so positions are in
 * commit order by themselves, and the head is kept in memory.
 *
 * Appends are numbered at once but buffered and written many rows per INSERT (one statement per row was a
 * large part of a write touching tens of thousands of resources). The engine writes the buffer before each
 * commit and each savepoint (`flush`), and drops it on a rollback (`rollBack`).
 */
export class SqliteChangeLog implements ChangeLog {
  private readonly inserts = new Map<number, Statement<unknown[]>>();
  private readonly since;
  private readonly range;
  private readonly sinceTime;
  private readonly prune;
  private readonly bounds;
  /** the filterable fields of each kind, whose previous values an update logs */
  private readonly schemas = new Map<string, FilterSchema>();
  /** what each kind's lists of changed paths give (see ChangeShapes) */
  private readonly shapes = new ChangeShapes();
  /** appended rows not yet written, COLUMNS values each */
  private buffered: unknown[] = [];
  private appendsSincePrune = 0;
  /** the newest sequence number, kept in memory; undefined after a rollback until read again */
  private knownHead: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly retain = 200_000,
  ) {
    // the table is the schema's (sqlite-migrations.ts)
    this.since = db.prepare<[string, number, number], ChangeRow>(
      'SELECT seq, name, op, doc, paths, prior, time FROM change_log WHERE plural = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.range = db.prepare<[number, number, number], ChangeRow & { plural: string }>(
      'SELECT seq, plural, name, op, doc, paths, prior, time FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
    );
    this.sinceTime = db.prepare<[string, string], { seq: number }>(
      'SELECT COALESCE(MIN(seq) - 1, (SELECT COALESCE(MAX(seq), 0) FROM change_log)) AS seq FROM change_log WHERE plural = ? AND time >= ?',
    );
    this.prune = db.prepare<[number]>('DELETE FROM change_log WHERE seq <= ?');
    this.bounds = db.prepare<[], { oldest: number | null; newest: number | null }>(
      "SELECT MIN(seq) AS oldest, (SELECT seq FROM sqlite_sequence WHERE name = 'change_log') AS newest FROM change_log",
    );
  }

  describe(plural: string, schema: FilterSchema): void {
    this.schemas.set(plural, schema);
  }

  append(
    plural: string,
    name: string,
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    time: string,
  ): Appended {
    const seq = this.head() + 1;
    const { row, changed } = logRowOf(seq, plural, name, before, after, time, this.schemas.get(plural), this.shapes);
    this.buffered.push(...row);
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

  openTransaction(): () => number {
    const start = this.head();
    return () => start;
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

  read(plural: string, afterSeq: number, limit: number): LoggedChange[] {
    this.flush();
    return this.since
      .all(plural, afterSeq, limit)
      .map((r) => loggedChangeOf([r.seq, plural, r.name, r.op, r.doc, r.paths, r.prior, r.time] as LogRow));
  }

  readRange(afterSeq: number, upTo: number, limit: number): { plural: string; change: LoggedChange }[] {
    this.flush();
    return this.range.all(afterSeq, upTo, limit).map((r) => ({
      plural: r.plural,
      change: loggedChangeOf([r.seq, r.plural, r.name, r.op, r.doc, r.paths, r.prior, r.time] as LogRow),
    }));
  }

  /** The position just before the first change of a kind at or after `time`. */
  positionAt(plural: string, time: string): number {
    this.flush();
    return this.sinceTime.get(plural, time)?.seq ?? 0;
  }
}
