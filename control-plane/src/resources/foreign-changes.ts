import { decodePaths, undoOnView } from './change-facts.js';
import type { PriorValue } from './change-facts.js';
import type { Change, LoggedChange } from './change-log.js';
import type { ResourceEngine } from './resource-engine.js';
import type { Doc } from './resource-table.js';

export interface ForeignChanges {
  /** the changes read, oldest first, as the local change bus delivers them */
  changes: Change[];
  /** the log position they bring the reader to */
  position: number;
}

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
  for (const [plural, byName] of byPlural) {
    const handle = engine.all().find((h) => h.def.plural === plural);
    if (handle === undefined) continue; // a kind this process does not serve
    handle.table.invalidate();
    const now = handle.findRows(byName.keys());
    for (const [name, logged] of byName) rebuild(plural, name, logged, now.get(name)?.doc ?? null, changes);
  }
  changes.sort((a, b) => a.seq - b.seq);
  return { changes, position };
}

/** Walks one resource's changes back from its current document, adding each to `into`. */
function rebuild(plural: string, name: string, logged: readonly LoggedChange[], now: Doc | null, into: Change[]): void {
  let state = now;
  for (let i = logged.length - 1; i >= 0; i--) {
    const change = logged[i]!;
    const after = change.op === 'delete' ? null : state;
    const before = stateBefore(change, after);
    state = before;
    if (after === null && before === null) continue; // nothing left to tell it by
    const changed = change.op === 'update' && change.paths !== null ? decodePaths(change.paths) : undefined;
    into.push({
      seq: change.seq,
      plural,
      name,
      op: after === null ? 'delete' : 'put',
      before,
      after,
      changed,
      bytes: JSON.stringify(after ?? before).length,
      time: change.time,
      foreign: true,
    });
  }
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
