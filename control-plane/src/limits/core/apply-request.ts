import { failedPrecondition, invalidArgument, notFound } from '@outpost/shared';
import { keyOf, mergeAllowances } from './allowance-key.js';
import type { AssignRequest, AssignmentSpec, ExtendRequest, RequestType, UnassignRequest } from './model.js';
import { validateAllowances, validateRegion } from './validate-allowances.js';

/**
 * The assignment spec after a request, or undefined when the request removes the assignment.
 * `current` is the assignee's assignment for `service`, if it has one. New region overrides carry
 * planGeneration 0 until materializeAssignment fills it in.
 */
export function applyRequest(
  current: AssignmentSpec | undefined,
  request: RequestType,
  service: string,
): AssignmentSpec | undefined {
  if ('assign' in request) return applyAssign(current, request.assign, service);
  if ('extend' in request) return applyExtend(current, request.extend);
  return applyUnassign(current, request.unassign);
}

function applyAssign(current: AssignmentSpec | undefined, assign: AssignRequest, service: string): AssignmentSpec {
  if (!assign.plan) throw invalidArgument('assign.plan is required');
  validateRegion('assign.region', assign.region);
  validateAllowances('assign.extensions', assign.extensions);
  const base: AssignmentSpec = current ?? {
    service,
    defaultRegionalPlan: '',
    regionalPlanOverrides: [],
    extensions: [],
  };
  if (assign.region === '') {
    // The all-regions scope owns the default plan and the extensions without region; region-specific
    // overrides stay, and a given extension naming a region replaces that resource's extension there.
    const given = mergeAllowances(assign.extensions);
    const replaced = new Set(given.map(keyOf));
    const kept = base.extensions.filter((ext) => ext.region !== '' && !replaced.has(keyOf(ext)));
    return { ...base, defaultRegionalPlan: assign.plan, extensions: [...kept, ...given] };
  }
  const region = assign.region;
  const misplaced = assign.extensions.find((ext) => ext.region !== '' && ext.region !== region);
  if (misplaced) {
    throw invalidArgument(`assign.extensions: extension in region "${misplaced.region}" given for region "${region}"`);
  }
  return {
    ...base,
    regionalPlanOverrides: [
      ...base.regionalPlanOverrides.filter((override) => override.region !== region),
      { plan: assign.plan, region, planGeneration: 0 },
    ],
    extensions: [
      ...base.extensions.filter((ext) => ext.region !== region),
      ...mergeAllowances(assign.extensions.map((ext) => ({ ...ext, region }))),
    ],
  };
}

function applyExtend(current: AssignmentSpec | undefined, extend: ExtendRequest): AssignmentSpec {
  if (!current) throw notFound(`assignment "${extend.assignment}" does not exist`);
  validateAllowances('extend.additions', extend.additions);
  return { ...current, extensions: mergeAllowances(current.extensions, extend.additions) };
}

function applyUnassign(current: AssignmentSpec | undefined, unassign: UnassignRequest): AssignmentSpec | undefined {
  if (!current) throw notFound(`assignment "${unassign.assignment}" does not exist`);
  validateRegion('unassign.region', unassign.region);
  if (unassign.region === '') return undefined;
  const overrides = current.regionalPlanOverrides.filter((override) => override.region !== unassign.region);
  if (overrides.length === current.regionalPlanOverrides.length) {
    throw failedPrecondition(`assignment "${unassign.assignment}" has no plan for region "${unassign.region}"`);
  }
  const next = { ...current, regionalPlanOverrides: overrides };
  const empty = next.defaultRegionalPlan === '' && overrides.length === 0 && next.extensions.length === 0;
  return empty ? undefined : next;
}
