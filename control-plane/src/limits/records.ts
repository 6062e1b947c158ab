import { isDocument } from '../resources/doc-utils.js';
import type { Doc } from '../resources/resource-table.js';
import type {
  Allowance,
  Assignment,
  AssignmentSpec,
  Limit,
  LimitPool,
  OrganizationNode,
  Plan,
  PlanLevel,
  ProjectNode,
  RegionalPlanAssignment,
  RequestType,
} from './core/index.js';

/** Stored documents as the core's plain records, and back. Absent fields read as their proto3 defaults. */

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const integer = (value: unknown): number => (typeof value === 'number' ? value : 0);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
const record = (value: unknown): Doc => (isDocument(value) ? value : {});

export const allowanceOf = (value: unknown): Allowance => {
  const a = record(value);
  return { resource: text(a['resource']), value: integer(a['value']), region: text(a['region']) };
};
export const allowancesOf = (value: unknown): Allowance[] => list(value).map(allowanceOf);

/** JSON of an allowance: an empty region (every region) is left out, as proto3 JSON does. */
export const allowanceJson = (a: Allowance): Doc =>
  a.region === ''
    ? { resource: a.resource, value: a.value }
    : { resource: a.resource, value: a.value, region: a.region };

export function planOf(doc: Doc): Plan {
  return {
    name: text(doc['name']),
    service: text(doc['service']),
    resourceLimits: list(doc['resourceLimits']).map((v) => ({
      resource: text(record(v)['resource']),
      value: integer(record(v)['value']),
    })),
    planLevel: (text(doc['planLevel']) || 'UNDEFINED') as PlanLevel,
    businessTier: text(doc['businessTier']) || 'UNDEFINED',
    generation: integer(doc['generation']),
  };
}

const overrideOf = (value: unknown): RegionalPlanAssignment => {
  const o = record(value);
  return { plan: text(o['plan']), region: text(o['region']), planGeneration: integer(o['planGeneration']) };
};

/** What a PlanAssignment or AcceptedPlan says (the rest is computed). */
export function specOf(doc: Doc): AssignmentSpec {
  return {
    service: text(doc['service']),
    defaultRegionalPlan: text(doc['defaultRegionalPlan']),
    regionalPlanOverrides: list(doc['regionalPlanOverrides']).map(overrideOf),
    extensions: allowancesOf(doc['extensions']),
  };
}

/** The spec with the computed fields as stored (possibly stale). */
export function storedAssignmentOf(doc: Doc): Assignment {
  return {
    ...specOf(doc),
    allowances: allowancesOf(doc['allowances']),
    appliedRegions: list(doc['appliedRegions']).map(text),
    appliedPlanSpecGeneration: integer(doc['appliedPlanSpecGeneration']),
  };
}

/** Every field an assignment document holds besides name, metadata, source and assignee. */
export function assignmentFields(a: Assignment): Doc {
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

export function limitOf(doc: Doc): Limit {
  return {
    name: text(doc['name']),
    service: text(doc['service']),
    resource: text(doc['resource']),
    region: text(doc['region']),
    configuredLimit: integer(doc['configuredLimit']),
    activeLimit: integer(doc['activeLimit']),
    usage: integer(doc['usage']),
    sources: list(doc['sources']).map(text),
  };
}

export function poolOf(doc: Doc): LimitPool {
  return {
    name: text(doc['name']),
    service: text(doc['service']),
    resource: text(doc['resource']),
    region: text(doc['region']),
    configuredSize: integer(doc['configuredSize']),
    activeSize: integer(doc['activeSize']),
    reserved: integer(doc['reserved']),
    source: text(doc['source']),
  };
}

export const limitFields = (l: Limit): Doc => ({
  service: l.service,
  resource: l.resource,
  region: l.region,
  configuredLimit: l.configuredLimit,
  activeLimit: l.activeLimit,
  usage: l.usage,
  sources: [...l.sources],
});

export const poolFields = (p: LimitPool): Doc => ({
  service: p.service,
  resource: p.resource,
  region: p.region,
  configuredSize: p.configuredSize,
  activeSize: p.activeSize,
  reserved: p.reserved,
  source: p.source,
});

/** The one member of a request body; anything else is INVALID_ARGUMENT (thrown by the caller). */
export function requestTypeOf(value: unknown): RequestType | string {
  const r = record(value);
  const members = ['assign', 'extend', 'unassign'].filter((m) => r[m] !== undefined && r[m] !== null);
  if (members.length !== 1) return 'request must set exactly one of assign, extend and unassign';
  const body = record(r[members[0]!]);
  if (members[0] === 'assign') {
    return {
      assign: { plan: text(body['plan']), extensions: allowancesOf(body['extensions']), region: text(body['region']) },
    };
  }
  if (members[0] === 'extend') {
    return { extend: { assignment: text(body['assignment']), additions: allowancesOf(body['additions']) } };
  }
  return { unassign: { assignment: text(body['assignment']), region: text(body['region']) } };
}

export const regionsOf = (doc: Doc | undefined): string[] => list(doc?.['regions']).map(text);

export const organizationNodeOf = (doc: Doc, regions: readonly string[]): OrganizationNode => ({
  name: text(doc['name']),
  parentOrganization: text(doc['parentOrganization']),
  regions,
});

export const projectNodeOf = (doc: Doc): ProjectNode => ({
  name: text(doc['name']),
  parentOrganization: text(doc['parentOrganization']),
  regions: regionsOf(doc),
});

export { text, record, list };
