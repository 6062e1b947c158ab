import { invalidArgument, projectFields, VIEWS } from '@outpost/shared';
import type { ResourceDefinition, View } from '@outpost/shared';
import type { Doc } from './resource-table.js';

export function parseView(value: unknown): View | undefined {
  if (value === undefined || value === '' || value === null) return undefined;
  const upper = String(value).toUpperCase();
  if (upper === 'VIEW_UNSPECIFIED' || upper === 'UNSPECIFIED') return undefined;
  const view = VIEWS.find((v) => v === upper);
  if (!view) throw invalidArgument(`invalid view "${String(value)}": one of ${VIEWS.join(', ')}`);
  return view;
}

/**
 * The paths a reader asked for: the view's fields plus the field mask on top.
 * Undefined means the whole resource (FULL, or no view and no mask).
 */
export function selectedPaths(
  def: ResourceDefinition,
  view: View | undefined,
  mask: readonly string[],
): string[] | undefined {
  if (view === 'FULL') return undefined;
  if (view === undefined) return mask.length > 0 ? ['name', ...mask] : undefined;
  const viewPaths = view === 'NAME' ? (def.views.NAME ?? ['name']) : (def.views[view] ?? undefined);
  if (viewPaths === undefined) return undefined;
  return ['name', ...viewPaths, ...mask];
}

export function present(doc: Doc, paths: readonly string[] | undefined): Doc {
  return paths === undefined ? doc : projectFields(doc, paths);
}
