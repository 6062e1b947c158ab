/** One '/'-separated segment of an id that spans several, with the word a reader knows it by. */
export interface IdSegment {
  label: string;
  /** unanchored pattern of the segment */
  pattern: RegExp;
}

/** How one id of a resource name is shaped. */
export interface IdRule {
  /** anchored pattern the whole id must match */
  pattern: RegExp;
  /** how many '/'-separated segments the id spans (default 1); Limit and LimitPool ids span 3 */
  segments?: number;
  /** for an id of several segments: each segment's own rule, so an error can name the one that is wrong */
  parts?: readonly IdSegment[];
}

/** A rule for ids of several '/'-separated segments, each with its own pattern. */
function segmentedRule(parts: readonly IdSegment[]): IdRule {
  const pattern = new RegExp(`^${parts.map((part) => part.pattern.source).join('\\/')}$`);
  return { pattern, segments: parts.length, parts };
}

/** The id formats of the specification (spec 001 "Name shapes", design.md "Names and fields"). */
export const ID_RULES = {
  /** devices, pods, projects, organizations, regions */
  device: { pattern: /^[a-z][a-z0-9-]{0,28}[a-z0-9]$/ },
  /** plans, planAssignments, acceptedPlans, osVersions, deviceTypes */
  generic: { pattern: /^[a-zA-Z0-9_.-]{1,128}$/ },
  /** planAssignmentRequests */
  request: { pattern: /^[a-z][a-z0-9-]{0,28}[a-z0-9]$/ },
  /** limits and limitPools: region / service / resource kind */
  limit: segmentedRule([
    { label: 'region', pattern: /[a-zA-Z0-9-]{1,128}/ },
    { label: 'service', pattern: /[a-zA-Z0-9-.]{1,128}/ },
    { label: 'kind', pattern: /[a-zA-Z]{1,128}/ },
  ]),
  /** service ids like 'devices.outpost', 'limits.outpost' */
  service: { pattern: /^[a-z][a-z0-9.-]{0,126}[a-z0-9]$/ },
} as const satisfies Record<string, IdRule>;

export const segmentsOf = (rule: IdRule): number => rule.segments ?? 1;

/** The pattern as a reader would write it: without anchors and escapes of '/'. */
export const describeRule = (rule: IdRule): string =>
  rule.pattern.source.replace(/^\^/, '').replace(/\$$/, '').replaceAll('\\/', '/');

/** A lone '-' stands for "every value" in parents and is never an id. */
export const WILDCARD = '-';

export const isValidId = (rule: IdRule, id: string): boolean =>
  id !== WILDCARD && id.split('/').length === segmentsOf(rule) && rule.pattern.test(id);

const matchesWhole = (pattern: RegExp, text: string): boolean => new RegExp(`^(?:${pattern.source})$`).test(text);

/**
 * What is wrong with `id` as the `variable` of a name, in a reader's words (null when nothing is):
 * `project id "p" must match [a-z][a-z0-9-]{0,28}[a-z0-9]`.
 */
export function idProblem(variable: string, rule: IdRule, id: string): string | null {
  if (isValidId(rule, id)) return null;
  const subject = `${variable} id "${id}"`;
  if (id === WILDCARD) return `${subject} is the wildcard, which stands for every value only in a parent`;
  const parts = rule.parts;
  if (parts === undefined) return `${subject} must match ${describeRule(rule)}`;
  const shape = parts.map((part) => part.label).join('/');
  const segments = id.split('/');
  if (segments.length !== parts.length) return `${subject} must be ${shape}, matching ${describeRule(rule)}`;
  const index = parts.findIndex((part, i) => !matchesWhole(part.pattern, segments[i] ?? ''));
  const part = parts[index];
  if (part === undefined) return `${subject} must match ${describeRule(rule)}`;
  return `${subject} must be ${shape}: ${part.label} "${segments[index]}" must match ${part.pattern.source}`;
}
