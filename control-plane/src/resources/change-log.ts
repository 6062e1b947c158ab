import type { FilterSchema } from '@outpost/shared';
import { parseDocument } from './doc-utils.js';
import type { Doc } from './resource-table.js';
import { changedMemberPaths, priorValuesAt } from './change-facts.js';
import type { ChangeShapes } from './change-shapes.js';

export type ChangeOp = 'put' | 'delete';

/** One committed change of one resource, as delivered to watchers. */
export interface Change<D extends Doc = Doc> {
  seq: number;
  plural: string;
  name: string;
  op: ChangeOp;
  /** the stored document before the change; null for creates */
  before: D | null;
  /** the stored document after the change; null for deletes */
  after: D | null;
  /** the changed leaf paths of an update (as changedPaths lists them); undefined for creates and deletes */
  changed: readonly string[] | undefined;
  /** about how many bytes the document (after, or before for a delete) takes as JSON */
  bytes: number;
  time: string;
  /**
   * Set on a change another process committed to the same store (cluster/watch-follower.ts publishes those):
   * its documents are rebuilt from the log (see foreign-changes.ts), and what a service does for the changes it
   * makes itself (adding a metrics sample to the shared history) that process has done already.
   */
  foreign?: true;
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

/** The columns of one logged change, in the order every store writes them. */
export type LogRow = [
  seq: number,
  plural: string,
  name: string,
  op: LoggedOp,
  doc: string | null,
  paths: string | null,
  prior: string | null,
  time: string,
];

/**
 * The row that logs a change (a create when `before` is null, a delete when `after` is), and the changed paths of
 * an update. `schema`: the kind's filterable fields, whose previous values an update keeps; `shapes`: the log's.
 */
export function logRowOf(
  seq: number,
  plural: string,
  name: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  time: string,
  schema: FilterSchema | undefined,
  shapes: ChangeShapes,
): { row: LogRow; changed: string[] | undefined } {
  if (after === null) {
    const doc = before === null ? null : JSON.stringify(before);
    return { row: [seq, plural, name, 'delete', doc, null, null, time], changed: undefined };
  }
  if (before === null) return { row: [seq, plural, name, 'create', null, null, null, time], changed: undefined };
  const changed = changedMemberPaths(before, after);
  const shape = shapes.of(plural, changed, schema);
  const prior = priorValuesAt(before, shape.touched);
  const priorText = prior.length === 0 ? null : JSON.stringify(prior);
  return { row: [seq, plural, name, 'update', null, shape.encoded, priorText, time], changed };
}

/** A stored log row as read back: the deleted document parsed. */
export function loggedChangeOf(row: LogRow): LoggedChange {
  const [seq, , name, op, doc, paths, prior, time] = row;
  const deleted = op === 'delete' && doc !== null ? parseDocument(doc) : null;
  return { seq, name, op, deleted, paths, prior, time };
}

/**
 * The store's change log: a monotonic sequence of every write. A watcher's resume token is a position in it.
 * It keeps the newest `retain` entries; older positions answer "too old" and the watcher gets a hard reset.
 * Positions are handed out in commit order: a reader that has seen position N never later finds a change
 * below N committed after it read (each store serialises its appends in the writing transaction).
 *
 * Appends may be numbered at once but written later: the engine calls `flush` before each commit and each
 * savepoint, and `rollBack` after a rollback (what was buffered is gone, and so are its numbers).
 */
export interface ChangeLog {
  /** Tells the log which fields of a kind are filterable (before its first append). */
  describe(plural: string, schema: FilterSchema): void;
  /** Logs a change inside the caller's transaction: a create when `before` is null, a delete when `after` is. */
  append(
    plural: string,
    name: string,
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    time: string,
  ): Appended;
  /** Writes the buffered appends (inside the caller's transaction). */
  flush(): void;
  /** After a rollback: what was buffered is gone, and so are the sequence numbers it used. */
  rollBack(): void;
  /**
   * Called first inside a write transaction: returns the head as the transaction found it (before its own
   * appends). A store may read it together with the transaction's first statement rather than at once.
   */
  openTransaction(): () => number;
  /** The newest sequence number written so far (0 when empty); inside a write transaction, its own appends too. */
  head(): number;
  /** True when every change after `seq` is still in the log. */
  covers(seq: number): boolean;
  /** Changes of one resource kind after `seq`, oldest first. */
  read(plural: string, afterSeq: number, limit: number): LoggedChange[];
  /**
   * Changes of every kind after `afterSeq` up to `upTo` (inclusive), oldest first: what another process on the
   * same store committed (cluster/watch-follower.ts).
   */
  readRange(afterSeq: number, upTo: number, limit: number): { plural: string; change: LoggedChange }[];
  /** The position just before the first change of a kind at or after `time`. */
  positionAt(plural: string, time: string): number;
}
