import type { FilterSchema } from '@outpost/shared';
import { loggedChangeOf, logRowOf } from '../../change-log.js';
import { ChangeShapes } from '../../change-shapes.js';
import type { Appended, ChangeLog, LoggedChange, LogRow } from '../../change-log.js';
import type { PgStorage } from './pg-storage.js';

const LOCK_HEAD = 'SELECT seq FROM change_log_head FOR UPDATE';

/** Appended rows written per statement (one JSON parameter: one statement whatever the count). */
const ROWS_PER_WRITE = 2000;

/**
 * The change log in PostgreSQL (see ChangeLog). Positions are handed out in commit order: a transaction reads
 * the head from change_log_head FOR UPDATE before its first append, and that row lock is held until it commits
 * or rolls back, so a second writer (another connection, another control plane) numbers its changes only after
 * the first is committed. A reader that has seen position N therefore never finds a change below N committed
 * later. Outside a transaction the head is read from the database (another writer may have moved it).
 */
export class PgChangeLog implements ChangeLog {
  private readonly schemas = new Map<string, FilterSchema>();
  /** what each kind's lists of changed paths give (see ChangeShapes) */
  private readonly shapes = new ChangeShapes();
  private buffered: LogRow[] = [];
  private appendsSincePrune = 0;
  /** the head as this transaction holds it (locked), and which transaction that is */
  private knownHead: number | undefined;
  private lockedIn = 0;
  /** the lock of the head queued at the start of transaction `lockedIn`, until its answer is taken */
  private queuedLock: (() => number | undefined) | undefined;
  /** the head as transaction `startIn` first locked it: where its own appends begin */
  private start = 0;
  private startIn = 0;

  constructor(
    private readonly storage: PgStorage,
    private readonly retain = 200_000,
  ) {}

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
    if (this.storage.transactionNumber === 0) throw new Error('the change log is written only in a transaction');
    const seq = this.head() + 1;
    const { row, changed } = logRowOf(seq, plural, name, before, after, time, this.schemas.get(plural), this.shapes);
    this.buffered.push(row);
    this.knownHead = seq;
    if (this.buffered.length >= ROWS_PER_WRITE) this.flush();
    return { seq, changed };
  }

  flush(): void {
    const rows = this.buffered;
    if (rows.length === 0) return;
    this.buffered = [];
    const last = rows[rows.length - 1]![0];
    const statements = [
      {
        // the rows as one JSON array of arrays: one string to hand over, nothing escaped into array literals
        sql:
          'INSERT INTO change_log(seq, plural, name, op, doc, paths, prior, time) SELECT (r->>0)::bigint, ' +
          'r->>1, r->>2, r->>3, r->>4, r->>5, r->>6, r->>7 FROM jsonb_array_elements(?::jsonb) AS r',
        params: [JSON.stringify(rows)],
      },
      { sql: 'UPDATE change_log_head SET seq = ?', params: [last] },
    ];
    this.appendsSincePrune += rows.length;
    if (this.appendsSincePrune >= 1000) {
      this.appendsSincePrune = 0;
      if (last > this.retain)
        statements.push({ sql: 'DELETE FROM change_log WHERE seq <= ?', params: [last - this.retain] });
    }
    // nobody waits for them: they go out with the transaction's next statement or its commit
    for (const statement of statements) this.storage.defer(statement);
  }

  rollBack(): void {
    this.buffered = [];
    this.knownHead = undefined;
    // a lock still queued is kept: nothing was appended yet (an append takes its answer), so it is still right
  }

  /**
   * Locks the head as the transaction's first statement without a round trip of its own: the lock goes out with
   * the transaction's first statement that is waited for (whose reads then see every write committed before the
   * lock, as when it went alone). Returns the head as the transaction found it, read when first asked for.
   */
  openTransaction(): () => number {
    const transaction = this.storage.transactionNumber;
    const read = this.storage.deferRead({ sql: LOCK_HEAD });
    this.lockedIn = transaction;
    this.knownHead = undefined;
    this.queuedLock = () => {
      const row = read()?.rows[0];
      return row === undefined ? undefined : Number(row[0] ?? 0);
    };
    return () => {
      if (this.startIn !== transaction) this.head();
      return this.start;
    };
  }

  head(): number {
    const transaction = this.storage.transactionNumber;
    if (transaction === 0) {
      this.knownHead = undefined;
      return Number(this.storage.query('SELECT seq FROM change_log_head').rows[0]?.[0] ?? 0);
    }
    if (this.lockedIn !== transaction || this.knownHead === undefined) {
      // this transaction's first look (or its first after a savepoint was undone): lock the head, then read it
      const queued = this.lockedIn === transaction ? this.queuedLock : undefined;
      this.queuedLock = undefined;
      this.knownHead = queued?.() ?? Number(this.storage.query(LOCK_HEAD).rows[0]?.[0] ?? 0);
      this.lockedIn = transaction;
      if (this.startIn !== transaction) [this.start, this.startIn] = [this.knownHead, transaction];
    }
    return this.knownHead;
  }

  covers(seq: number): boolean {
    this.flush();
    const [oldest, newest] = this.storage.query(
      'SELECT (SELECT MIN(seq) FROM change_log), (SELECT seq FROM change_log_head)',
    ).rows[0] as [number | null, number];
    if (seq > newest) return false;
    return oldest === null || seq >= oldest - 1;
  }

  read(plural: string, afterSeq: number, limit: number): LoggedChange[] {
    this.flush();
    const { rows } = this.storage.query(
      'SELECT seq, plural, name, op, doc, paths, prior, time FROM change_log WHERE plural = ? AND seq > ? ORDER BY seq LIMIT ?',
      [plural, afterSeq, limit],
    );
    return rows.map((row) => loggedChangeOf(row as LogRow));
  }

  readRange(afterSeq: number, upTo: number, limit: number): { plural: string; change: LoggedChange }[] {
    this.flush();
    const { rows } = this.storage.query(
      'SELECT seq, plural, name, op, doc, paths, prior, time FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
      [afterSeq, upTo, limit],
    );
    return rows.map((row) => ({ plural: String(row[1]), change: loggedChangeOf(row as LogRow) }));
  }

  positionAt(plural: string, time: string): number {
    this.flush();
    const { rows } = this.storage.query(
      'SELECT COALESCE(MIN(seq) - 1, (SELECT seq FROM change_log_head)) FROM change_log WHERE plural = ? AND time >= ?',
      [plural, time],
    );
    return Number(rows[0]?.[0] ?? 0);
  }
}
