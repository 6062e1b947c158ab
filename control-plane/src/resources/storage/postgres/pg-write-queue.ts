import type { PgResult, PostgresError } from './sync-postgres.js';

/** A statement with `?` parameters, as the engine writes them. */
export interface Sql {
  sql: string;
  params?: readonly unknown[];
}

/** How the failure of a queued statement is reported to whoever runs into it (e.g. as the request's fault). */
export type ErrorMapper = (err: PostgresError) => Error;

/** Takes the result of a queued read once it went out (see PgStorage.deferRead). */
export type ResultReceiver = (result: PgResult) => void;

/** A kind of row write whose writes of many rows go out together, as a few statements whatever their count. */
export interface RowShape<R> {
  /** The statements that write every one of `rows` (each of another row). */
  statements(rows: readonly R[]): Sql[];
  mapError?: ErrorMapper;
}

/** Row writes merged into one entry at most; more start the next. */
const ROWS_PER_ENTRY = 5000;

type Entry =
  | { kind: 'statement'; statement: Sql; mapError?: ErrorMapper; receive?: ResultReceiver }
  | { kind: 'rows'; shape: RowShape<unknown>; ids: Set<number>; rows: unknown[] };

/**
 * The writes of a transaction whose results nobody waits for, in order, until they go out with the next
 * statement that is waited for (or the commit): one round trip for many. Writes of one shape queued one after
 * the other are merged into one set of statements while each is of another row (the same row twice, or
 * anything queued between them, starts a new set, so the order of writes to a row is kept).
 */
export class WriteQueue {
  private entries: Entry[] = [];
  private rowCount = 0;

  get length(): number {
    return this.entries.length;
  }

  /** How many row writes are queued. */
  get rows(): number {
    return this.rowCount;
  }

  push(statement: Sql, mapError?: ErrorMapper, receive?: ResultReceiver): void {
    this.entries.push({
      kind: 'statement',
      statement,
      ...(mapError ? { mapError } : {}),
      ...(receive ? { receive } : {}),
    });
  }

  pushRow<R>(shape: RowShape<R>, id: number, row: R): void {
    this.rowCount++;
    const last = this.entries[this.entries.length - 1];
    if (last?.kind === 'rows' && last.shape === shape && !last.ids.has(id) && last.rows.length < ROWS_PER_ENTRY) {
      last.ids.add(id);
      last.rows.push(row);
      return;
    }
    this.entries.push({ kind: 'rows', shape: shape as RowShape<unknown>, ids: new Set([id]), rows: [row] });
  }

  /** Drops what was queued after the first `length` entries. */
  truncate(length: number): void {
    this.entries.length = Math.min(length, this.entries.length);
    this.rowCount = this.entries.reduce((rows, entry) => rows + (entry.kind === 'rows' ? entry.rows.length : 0), 0);
  }

  /** Empties the queue: its statements in order, for each how its failure is reported and who takes its result. */
  take(): { statements: Sql[]; mappers: (ErrorMapper | undefined)[]; receivers: (ResultReceiver | undefined)[] } {
    const statements: Sql[] = [];
    const mappers: (ErrorMapper | undefined)[] = [];
    const receivers: (ResultReceiver | undefined)[] = [];
    for (const entry of this.entries) {
      const made = entry.kind === 'statement' ? [entry.statement] : entry.shape.statements(entry.rows);
      const mapError = entry.kind === 'statement' ? entry.mapError : entry.shape.mapError;
      const receive = entry.kind === 'statement' ? entry.receive : undefined;
      for (const statement of made) {
        statements.push(statement);
        mappers.push(mapError);
        receivers.push(receive);
      }
    }
    this.entries = [];
    this.rowCount = 0;
    return { statements, mappers, receivers };
  }
}
