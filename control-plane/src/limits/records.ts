import type {
  AcceptedPlanResource,
  AllowanceJson,
  LimitPoolResource,
  LimitResource,
  Organization,
  PlanAssignmentRequestResource,
  PlanAssignmentResource,
  PlanResource,
  Project,
} from '@outpost/shared';
import type {
  Allowance,
  Assignment,
  AssignmentSpec,
  Limit,
  LimitPool,
  OrganizationNode,
  Plan,
  ProjectNode,
  RegionalPlanAssignment,
  RequestType,
} from './core/index.js';

/** Stored documents as the core's plain records, and back. Absent fields read as their proto3 defaults. */

/** The fields a PlanAssignment and its AcceptedPlan share (what a recompute reads and writes of them). */
export type AssignmentDoc = Omit<PlanAssignmentResource | AcceptedPlanResource, 'source' | 'assignee'>;

export const allowanceOf = (a: AllowanceJson): Allowance => ({
  resource: a.resource,
  value: a.value,
  region: a.region ?? '',
});
export const allowancesOf = (value: readonly AllowanceJson[] | undefined): Allowance[] =>
  (value ?? []).map(allowanceOf);

/** JSON of an allowance: an empty region (every region) is left out, as proto3 JSON does. */
export const allowanceJson = (a: Allowance): AllowanceJson =>
  a.region === ''
    ? { resource: a.resource, value: a.value }
    : { resource: a.resource, value: a.value, region: a.region };

export function planOf(doc: PlanResource): Plan {
  return {
    name: doc.name,
    service: doc.service ?? '',
    resourceLimits: (doc.resourceLimits ?? []).map(({ resource, value }) => ({ resource, value })),
    planLevel: doc.planLevel ?? 'UNDEFINED',
    businessTier: doc.businessTier ?? 'UNDEFINED',
    generation: doc.generation ?? 0,
  };
}

const overrideOf = (o: NonNullable<AssignmentDoc['regionalPlanOverrides']>[number]): RegionalPlanAssignment => ({
  plan: o.plan,
  region: o.region,
  planGeneration: o.planGeneration ?? 0,
});

/** What a PlanAssignment or AcceptedPlan says (the rest is computed). */
export function specOf(doc: AssignmentDoc): AssignmentSpec {
  return {
    service: doc.service ?? '',
    defaultRegionalPlan: doc.defaultRegionalPlan ?? '',
    regionalPlanOverrides: (doc.regionalPlanOverrides ?? []).map(overrideOf),
    extensions: allowancesOf(doc.extensions),
  };
}

/** The spec with the computed fields as stored (possibly stale). */
export function storedAssignmentOf(doc: AssignmentDoc): Assignment {
  return {
    ...specOf(doc),
    allowances: allowancesOf(doc.allowances),
    appliedRegions: [...(doc.appliedRegions ?? [])],
    appliedPlanSpecGeneration: doc.appliedPlanSpecGeneration ?? 0,
  };
}

/** Every field an assignment document holds besides name, metadata, source and assignee. */
export function assignmentFields(a: Assignment): Required<Omit<AssignmentDoc, 'name' | 'metadata'>> {
  return {
    defaultRegionalPlan: a.defaultRegionalPlan,
    service: a.service,
    regionalPlanOverrides: a.regionalPlanOverrides.map((o) => ({ ...o })),
    extensions: a.extensions.map(allowanceJson),
    allowances: a.allowances.map(allowanceJson),
    appliedRegions: [...a.appliedRegions],
    appliedPlanSpecGeneration: a.appliedPlanSpecGeneration,
  };
}

export function limitOf(doc: LimitResource): Limit {
  return {
    name: doc.name,
    service: doc.service ?? '',
    resource: doc.resource ?? '',
    region: doc.region ?? '',
    configuredLimit: doc.configuredLimit ?? 0,
    activeLimit: doc.activeLimit ?? 0,
    usage: doc.usage ?? 0,
    sources: [...(doc.sources ?? [])],
  };
}

export function poolOf(doc: LimitPoolResource): LimitPool {
  return {
    name: doc.name,
    service: doc.service ?? '',
    resource: doc.resource ?? '',
    region: doc.region ?? '',
    configuredSize: doc.configuredSize ?? 0,
    activeSize: doc.activeSize ?? 0,
    reserved: doc.reserved ?? 0,
    source: doc.source ?? '',
  };
}

export const limitFields = (l: Limit): Required<Omit<LimitResource, 'name' | 'metadata'>> => ({
  service: l.service,
  resource: l.resource,
  region: l.region,
  configuredLimit: l.configuredLimit,
  activeLimit: l.activeLimit,
  usage: l.usage,
  sources: [...l.sources],
});

export const poolFields = (p: LimitPool): Required<Omit<LimitPoolResource, 'name' | 'metadata'>> => ({
  service: p.service,
  resource: p.resource,
  region: p.region,
  configuredSize: p.configuredSize,
  activeSize: p.activeSize,
  reserved: p.reserved,
  source: p.source,
});

/** The one member of a request body; anything else is INVALID_ARGUMENT (thrown by the caller). */
export function requestTypeOf(request: PlanAssignmentRequestResource['request']): RequestType | string {
  const { assign, extend, unassign } = request ?? {};
  const members = [assign, extend, unassign].filter((member) => member !== undefined && member !== null);
  if (members.length !== 1) return 'request must set exactly one of assign, extend and unassign';
  if (assign) {
    return { assign: { plan: assign.plan, extensions: allowancesOf(assign.extensions), region: assign.region ?? '' } };
  }
  if (extend) return { extend: { assignment: extend.assignment, additions: allowancesOf(extend.additions) } };
  return { unassign: { assignment: unassign?.assignment ?? '', region: unassign?.region ?? '' } };
}

/** The regions an entity lists. */
export const regionsOf = (doc: { regions?: readonly string[] | undefined } | undefined): string[] => [
  ...(doc?.regions ?? []),
];

export const organizationNodeOf = (doc: Organization, regions: readonly string[]): OrganizationNode => ({
  name: doc.name,
  parentOrganization: doc.parentOrganization ?? '',
  regions,
});

export const projectNodeOf = (doc: Project): ProjectNode => ({
  name: doc.name,
  parentOrganization: doc.parentOrganization ?? '',
  regions: regionsOf(doc),
});
