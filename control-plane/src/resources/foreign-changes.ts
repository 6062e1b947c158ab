import { decodePaths, undoOnView } from './change-facts.js';
import type { PriorValue } from './change-facts.js';
import type { Change, ChangeOp, LoggedChange } from './change-log.js';
import type { ResourceEngine } from './resource-engine.js';
import type { ResourceHandle } from './resource-handle.js';
import type { Doc } from './resource-table.js';

export interface ForeignChanges {
  /** the changes read, oldest first, as the local change bus delivers them */
  changes: Change[];
  /** the log position they bring the reader to */
  position: number;
}

/** How far past a read's end the log is searched for the delete of a resource gone since (see documentsOf). */
const DELETE_LOOKAHEAD = 10_000;

/**
 * The changes another process committed to the same store after `afterSeq` (up to `upTo`, at most `limit` of
 * them), rebuilt for the local change bus; the tables they touched are marked stale (their projections are
 * rebuilt on the next read).
 *
 * The log keeps no documents of creates and updates: a resource's changes are rebuilt walking back from its
 * current document (a delete keeps the deleted document, an update the previous values of the filterable
 * fields it changed and its changed paths). So filterable fields and changed paths are exact, while the other
 * fields of `before` are those of `after`, and `after` may be a newer document than the change wrote when the
 * resource was written again meanwhile (its next change follows).
 *
 * The documents are read only when a listener first looks at one (then those of every change of the read, of
 * that kind, at once): most listeners of a replica look at the name first (a device linked elsewhere) or at
 * the changed paths, and reading and parsing every document another replica wrote would cost each replica
 * as much as the write did.
 */
export function foreignChangesOf(
  engine: ResourceEngine,
  afterSeq: number,
  upTo: number,
  limit: number,
): ForeignChanges {
  const rows = engine.log.readRange(afterSeq, upTo, limit);
  const position = rows.length < limit ? upTo : rows[rows.length - 1]!.change.seq;
  const byPlural = new Map<string, Map<string, LoggedChange[]>>();
  for (const { plural, change } of rows) {
    let byName = byPlural.get(plural);
    if (!byName) byPlural.set(plural, (byName = new Map()));
    let changes = byName.get(change.name);
    if (!changes) byName.set(change.name, (changes = []));
    changes.push(change);
  }
  const changes: Change[] = [];
  // a kind's writes mostly change the same paths (a device's reports): each distinct list is decoded once
  const decodedPaths = new Map<string, readonly string[]>();
  for (const [plural, byName] of byPlural) {
    const handle = engine.all().find((h) => h.def.plural === plural);
    if (handle === undefined) continue; // a kind this process does not serve
    handle.table.invalidate();
    let states: Map<number, Sides> | undefined;
    const sidesOf = (seq: number): Sides => {
      states ??= documentsOf(engine, handle, byName, position);
      return states.get(seq) ?? NEITHER;
    };
    for (const [name, logged] of byName) {
      for (const change of logged) changes.push(new ForeignChange(plural, name, change, sidesOf, decodedPaths));
    }
  }
  changes.sort((a, b) => a.seq - b.seq);
  return { changes, position };
}

interface Sides {
  before: Doc | null;
  after: Doc | null;
}

const NEITHER: Sides = { before: null, after: null };

/** A change read from the log, its documents rebuilt when first asked for. */
class ForeignChange implements Change {
  readonly seq: number;
  readonly op: ChangeOp;
  readonly time: string;
  readonly foreign = true;
  private decoded: readonly string[] | undefined;
  private size: number | undefined;

  constructor(
    readonly plural: string,
    readonly name: string,
    private readonly logged: LoggedChange,
    private readonly sidesOf: (seq: number) => Sides,
    /** the lists of changed paths decoded so far in this read, by their encoding (shared, never modified) */
    private readonly decodedPaths: Map<string, readonly string[]>,
  ) {
    this.seq = logged.seq;
    this.op = logged.op === 'delete' ? 'delete' : 'put';
    this.time = logged.time;
  }

  get before(): Doc | null {
    return this.logged.op === 'create' ? null : this.sidesOf(this.seq).before;
  }

  get after(): Doc | null {
    return this.logged.op === 'delete' ? null : this.sidesOf(this.seq).after;
  }

  get changed(): readonly string[] | undefined {
    const encoded = this.logged.paths;
    if (this.logged.op !== 'update' || encoded === null) return undefined;
    if (this.decoded === undefined) {
      let paths = this.decodedPaths.get(encoded);
      if (paths === undefined) this.decodedPaths.set(encoded, (paths = decodePaths(encoded)));
      this.decoded = paths;
    }
    return this.decoded;
  }

  get bytes(): number {
    return (this.size ??= JSON.stringify(this.after ?? this.before ?? { name: this.name }).length);
  }
}

/**
 * Every change's documents, by position: each resource's changes walked back from its current document. A
 * resource deleted after the read (its delete is not among them) is walked back from the document its delete
 * kept; when that is gone from the log too, from its name alone.
 */
function documentsOf(
  engine: ResourceEngine,
  handle: ResourceHandle,
  byName: ReadonlyMap<string, readonly LoggedChange[]>,
  upTo: number,
): Map<number, Sides> {
  const now = handle.findRows(byName.keys());
  let laterDeletes: Map<string, Doc> | undefined;
  const deletedLater = (name: string): Doc | null => {
    laterDeletes ??= new Map(
      engine.log
        .read(handle.def.plural, upTo, DELETE_LOOKAHEAD)
        .filter((change) => change.op === 'delete' && change.deleted !== null)
        .map((change) => [change.name, change.deleted!]),
    );
    return laterDeletes.get(name) ?? null;
  };
  const sides = new Map<number, Sides>();
  for (const [name, logged] of byName) {
    const last = logged[logged.length - 1]!;
    let state: Doc | null = now.get(name)?.doc ?? (last.op === 'delete' ? null : (deletedLater(name) ?? { name }));
    for (let i = logged.length - 1; i >= 0; i--) {
      const change = logged[i]!;
      const after = change.op === 'delete' ? null : state;
      const before = stateBefore(change, after);
      sides.set(change.seq, { before, after });
      state = before;
    }
  }
  return sides;
}

function stateBefore(change: LoggedChange, after: Doc | null): Doc | null {
  switch (change.op) {
    case 'create':
      return null;
    case 'delete':
      return change.deleted;
    case 'update':
      return after !== null && change.prior !== null
        ? undoOnView(after, JSON.parse(change.prior) as PriorValue[])
        : after;
    case 'put':
      return after;
  }
}
