import { anyPathAffected, changedPaths, notFound } from '@outpost/shared';
import type { ResourceHandle } from '../resource-handle.js';
import { present, selectedPaths } from '../views.js';
import { ChangeQueue } from './change-queue.js';
import { queueBoundsOf } from './watch-types.js';
import type { ChangeMessage, WatchOneRequest, WatchOptions } from './watch-types.js';

/** Watch of one resource: its current state first, then every change of it as `{change: ...}`. */
export async function* watchOne(
  handle: ResourceHandle,
  req: WatchOneRequest,
  signal: AbortSignal,
  options: WatchOptions = {},
): AsyncGenerator<{ change: ChangeMessage }> {
  handle.patternOfName(req.name);
  const paths = selectedPaths(handle.def, req.view, handle.parseMask(req.fieldMask));
  const key = handle.def.singular;
  const queue = new ChangeQueue(queueBoundsOf(options), signal);
  const unsubscribe = handle.subscribe((change) => {
    if (change.name === req.name) queue.push(change);
  });
  try {
    let doc = handle.find(req.name);
    if (!doc) throw notFound(`${handle.def.singular} "${req.name}" not found`);
    yield { change: { current: { [key]: present(doc, paths) } } };
    for (;;) {
      const batch = await queue.take();
      if (batch === undefined) return;
      if (queue.resetOverflow()) {
        const now = handle.find(req.name);
        if (now) yield { change: { current: { [key]: present(now, paths) } } };
        else if (doc) yield { change: { removed: { name: req.name, viewIndex: 0 } } };
        doc = now;
        continue;
      }
      for (const change of batch) {
        if (!change.after) {
          if (doc) yield { change: { removed: { name: req.name, viewIndex: 0 } } };
          doc = undefined;
        } else if (!doc) {
          doc = change.after;
          yield { change: { added: { [key]: present(doc, paths), viewIndex: 0 } } };
        } else {
          const changed = changedPaths(doc, change.after);
          doc = change.after;
          if (changed.length === 0 || (paths && !anyPathAffected(changed, paths))) continue;
          yield {
            change: {
              modified: {
                name: req.name,
                [key]: present(doc, paths),
                fieldMask: changed.join(','),
                previousViewIndex: 0,
                viewIndex: 0,
              },
            },
          };
        }
      }
    }
  } finally {
    unsubscribe();
  }
}
