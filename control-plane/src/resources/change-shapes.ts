import type { FilterSchema } from '@outpost/shared';
import { encodePaths, touchedFilterPaths } from './change-facts.js';

/** What the change log writes for one list of changed paths (the same for every update that changed them). */
export interface ChangeShape {
  /** the paths as encodePaths writes them */
  encoded: string;
  /** the filterable paths the change touches, whose previous values the update keeps */
  touched: readonly string[];
}

/** Distinct lists of changed paths kept per kind; past it, the kind's are dropped and learned again. */
const SHAPES_PER_KIND = 256;

/**
 * The change facts an update's list of changed paths gives, computed once per distinct list and kind. A write
 * touching many documents changes the same paths in most of them (a plan change: the same few members of tens
 * of thousands of limits), so the encoding and the filter fields it touches are looked up instead of
 * recomputed per document.
 */
export class ChangeShapes {
  private readonly kinds = new Map<string, Map<string, { paths: readonly string[]; shape: ChangeShape }>>();

  of(plural: string, changed: readonly string[], schema: FilterSchema | undefined): ChangeShape {
    let shapes = this.kinds.get(plural);
    if (!shapes) this.kinds.set(plural, (shapes = new Map()));
    // paths hold document keys, which may contain any character: the key only finds a candidate
    const key = changed.join('\n');
    const known = shapes.get(key);
    if (known && sameList(known.paths, changed)) return known.shape;
    const shape = { encoded: encodePaths(changed), touched: schema ? touchedFilterPaths(changed, schema) : [] };
    if (shapes.size >= SHAPES_PER_KIND) shapes.clear();
    shapes.set(key, { paths: [...changed], shape });
    return shape;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
