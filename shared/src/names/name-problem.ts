import { idProblem, segmentsOf, WILDCARD } from './id-rules.js';
import type { IdRule } from './id-rules.js';
import type { TemplatePart } from './template-part.js';

/**
 * Why a name (or parent) does not fit a template. `shapeFits` says whether its literals and segment count
 * line up, so that only ids are wrong: such a name was meant for this template, and `message` names the
 * first wrong id and its rule; otherwise `message` says what the template looks like.
 */
export interface NameProblem {
  shapeFits: boolean;
  message: string;
}

/** The problem of `segments` under `parts`, or null when they fit (a '-' id counts only when `allowWildcard`). */
export function problemOf(
  parts: readonly TemplatePart[],
  segments: readonly string[],
  allowWildcard: boolean,
  template: string,
): NameProblem | null {
  const ids = idsByShape(parts, segments);
  if (ids === null) return { shapeFits: false, message: `must look like ${template}` };
  for (const { variable, rule, id } of ids) {
    if (allowWildcard && id === WILDCARD) continue;
    const message = idProblem(variable, rule, id);
    if (message !== null) return { shapeFits: true, message };
  }
  return null;
}

interface PlacedId {
  variable: string;
  rule: IdRule;
  id: string;
}

/**
 * Where each id of the template sits in `segments` when the literals line up, whatever the ids hold;
 * null when they do not. A last id of several segments takes what is left, so a missing or extra segment
 * there is reported as that id's problem.
 */
function idsByShape(parts: readonly TemplatePart[], segments: readonly string[]): PlacedId[] | null {
  const ids: PlacedId[] = [];
  let at = 0;
  for (const [index, part] of parts.entries()) {
    if (part.kind === 'literal') {
      if (segments[at] !== part.text) return null;
      at += 1;
      continue;
    }
    const span = segmentsOf(part.rule);
    const isLast = index === parts.length - 1;
    const end = isLast && span > 1 ? Math.max(segments.length, at + 1) : at + span;
    if (end > segments.length) return null;
    ids.push({ variable: part.name, rule: part.rule, id: segments.slice(at, end).join('/') });
    at = end;
  }
  return at === segments.length ? ids : null;
}
