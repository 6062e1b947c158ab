import { decodePaths, filterView, undoOnView } from '../change-facts.js';
import type { PriorValue } from '../change-facts.js';
import type { LoggedChange } from '../change-log.js';
import type { ResourceHandle } from '../resource-handle.js';
import type { Doc } from '../resource-table.js';
import { currentMessage, filterMatches, removedMessage, verdictOf } from './stateless-shape.js';
import type { StatelessShape, Verdict } from './stateless-shape.js';
import type { ChangeMessage } from './watch-types.js';

const LOG_READ_BATCH = 5000;

export interface Replay {
  messages: ChangeMessage[];
  /** the change-log position the messages bring a client to */
  position: number;
}

/**
 * What a stateless watcher that saw every change up to `from` would have been sent since, each resource once
 * (its last message, sent as the resource is now), in the order of those last messages: exactly the live
 * stream's messages with the superseded ones left out. Nothing of a resource outside the parent, nothing for a
 * change outside the filter or the mask.
 *
 * The log keeps no documents of creates and updates, but an update keeps its changed paths and the previous
 * values of the filterable fields it changed: walking a resource's changes back from its current document
 * gives, for each change, the filterable fields before and after it, which is all the live verdict needs.
 */
export function replayFrom(handle: ResourceHandle, from: number, shape: StatelessShape): Replay {
  const byName = new Map<string, LoggedChange[]>();
  let position = from;
  for (;;) {
    const page = handle.engineLog.read(handle.def.plural, position, LOG_READ_BATCH);
    for (const change of page) {
      position = change.seq;
      if (!shape.query.inParent(change.name)) continue;
      let changes = byName.get(change.name);
      if (!changes) byName.set(change.name, (changes = []));
      changes.push(change);
    }
    if (page.length < LOG_READ_BATCH) break;
  }
  const now = handle.table.findMany([...byName.keys()]);
  const last: { seq: number; message: ChangeMessage }[] = [];
  for (const [name, changes] of byName) {
    const doc = now.get(name)?.doc ?? null;
    const found = lastVerdict(shape, handle, changes, doc);
    if (found?.verdict === 'removed') last.push({ seq: found.seq, message: removedMessage(name) });
    // a resource whose last verdict is Current still matches: no later change took it out
    if (found?.verdict === 'current' && doc !== null)
      last.push({ seq: found.seq, message: currentMessage(shape, doc) });
  }
  last.sort((a, b) => a.seq - b.seq); // in the order the live stream sent these last messages
  return { messages: last.map((l) => l.message), position: Math.max(position, handle.engineLog.head()) };
}

/** The verdict of the newest change of one resource that had one, found walking back from `now`. */
function lastVerdict(
  shape: StatelessShape,
  handle: ResourceHandle,
  changes: readonly LoggedChange[],
  now: Doc | null,
): { verdict: Verdict; seq: number } | undefined {
  const schema = handle.def.filterSchema;
  let view = now === null ? null : filterView(now, schema); // the filterable fields after changes[i]
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i]!;
    const after = view;
    const before = stateBefore(change, after, schema);
    const changed = change.op === 'update' && change.paths !== null ? decodePaths(change.paths) : undefined;
    const verdict = verdictOf(shape, filterMatches(shape, before), filterMatches(shape, after), changed);
    if (verdict !== undefined) return { verdict, seq: change.seq };
    view = before;
  }
  return undefined;
}

function stateBefore(change: LoggedChange, after: Doc | null, schema: ResourceHandle['def']['filterSchema']) {
  switch (change.op) {
    case 'create':
      return null;
    case 'delete':
      return change.deleted === null ? null : filterView(change.deleted, schema);
    case 'update':
      return after !== null && change.prior !== null
        ? undoOnView(after, JSON.parse(change.prior) as PriorValue[])
        : after;
    case 'put':
      // logged by an earlier version, without previous values: taken as matching before as it matches after
      return after;
  }
}
