/** How one id of a resource name is shaped. */
export interface IdRule {
  /** anchored pattern the whole id must match */
  pattern: RegExp;
  /** how many '/'-separated segments the id spans (default 1); Limit and LimitPool ids span 3 */
  segments?: number;
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
  limit: { pattern: /^[a-zA-Z0-9-]{1,128}\/[a-zA-Z0-9-.]{1,128}\/[a-zA-Z]{1,128}$/, segments: 3 },
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
