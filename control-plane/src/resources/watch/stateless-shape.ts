import { anyPathAffected, evaluateFilter } from '@outpost/shared';
import type { CollectionQuery } from '../collection-query.js';
import type { Doc } from '../resource-table.js';
import { present } from '../views.js';
import type { ChangeMessage } from './watch-types.js';

/** What a stateless watcher watches: a parent, a filter and a mask, and how it words its messages. */
export interface StatelessShape {
  query: CollectionQuery;
  /** the selected paths (undefined: the whole resource) */
  paths: string[] | undefined;
  /** the singular name keying the resource in a message */
  key: string;
}

export type Verdict = 'current' | 'removed' | undefined;

/** The filter alone (the parent is told by the name): on a document or on a filterView of one. */
export const filterMatches = (shape: StatelessShape, doc: Doc | null): boolean =>
  doc !== null && evaluateFilter(shape.query.filter, doc);

/**
 * What a live watcher sends for one change (spec 001 Events 2): Current when the resource matches after it
 * (unless it matched before too and the change touched no masked field), Removed when it matched only before,
 * else nothing. `changed`: the update's changed paths; undefined counts as everything changed.
 */
export function verdictOf(
  shape: StatelessShape,
  matchedBefore: boolean,
  matchesAfter: boolean,
  changed: readonly string[] | undefined,
): Verdict {
  if (matchesAfter) {
    const mask = shape.paths ?? [];
    if (matchedBefore && mask.length > 0 && changed !== undefined && !anyPathAffected(changed, mask)) return undefined;
    return 'current';
  }
  return matchedBefore ? 'removed' : undefined;
}

export const currentMessage = (shape: StatelessShape, doc: Doc): ChangeMessage => ({
  current: { [shape.key]: present(doc, shape.paths) },
});

export const removedMessage = (name: string): ChangeMessage => ({ removed: { name } });
