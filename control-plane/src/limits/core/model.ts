/**
 * The plain, JSON-shaped records the limits core reads and writes. Field names are the lowerCamel JSON
 * names of the API; int64 values are JavaScript numbers (safe integers). Records stored by the resource
 * engine carry more fields (metadata, displayName, ...); the core reads only these and returns only these.
 */

export type PlanLevel = 'UNDEFINED' | 'SERVICE' | 'ORGANIZATION' | 'PROJECT';

export interface LimitValue {
  /** services/{service}/resources/{Resource} */
  resource: string;
  value: number;
}

export interface Plan {
  name: string;
  service: string;
  resourceLimits: readonly LimitValue[];
  planLevel: PlanLevel;
  businessTier?: string;
  generation: number;
}

/** A per-resource amount; an empty region means every region. */
export interface Allowance {
  resource: string;
  value: number;
  region: string;
}

export interface RegionalPlanAssignment {
  plan: string;
  region: string;
  planGeneration: number;
}

/** What a PlanAssignment / AcceptedPlan says; everything else on it is computed from this. */
export interface AssignmentSpec {
  service: string;
  /** '' when the assignment holds region overrides only */
  defaultRegionalPlan: string;
  regionalPlanOverrides: readonly RegionalPlanAssignment[];
  extensions: readonly Allowance[];
}

export interface AssignmentComputed {
  allowances: readonly Allowance[];
  appliedRegions: readonly string[];
  appliedPlanSpecGeneration: number;
}

export type Assignment = AssignmentSpec & AssignmentComputed;

/** One assignment together with the entity it is for: services/{s}, organizations/{o} or projects/{p}. */
export interface AssigneeAssignment extends AssignmentSpec, Partial<AssignmentComputed> {
  assignee: string;
}

export interface AssignRequest {
  plan: string;
  extensions: readonly Allowance[];
  /** '' = the default plan for every region */
  region: string;
}

export interface ExtendRequest {
  assignment: string;
  additions: readonly Allowance[];
}

export interface UnassignRequest {
  assignment: string;
  /** '' = remove the whole assignment */
  region: string;
}

export type RequestType = { assign: AssignRequest } | { extend: ExtendRequest } | { unassign: UnassignRequest };

export type Conclusion = 'UNDEFINED' | 'PENDING' | 'APPROVED' | 'REJECTED';

export interface RequestStatus {
  conclusion: Conclusion;
  reason: string;
}

export interface LimitPool {
  /** {services/s | organizations/o}/limitPools/{region}/{serviceDomain}/{resourceKind} */
  name: string;
  service: string;
  resource: string;
  region: string;
  configuredSize: number;
  activeSize: number;
  reserved: number;
  /** the parent pool; '' for a service's own pools */
  source: string;
}

export interface Limit {
  /** projects/{p}/limits/{region}/{serviceDomain}/{resourceKind} */
  name: string;
  service: string;
  resource: string;
  region: string;
  configuredLimit: number;
  activeLimit: number;
  usage: number;
  sources: readonly string[];
}

export interface OrganizationNode {
  name: string;
  /** absent or '' = a first-level organization, fed by the service */
  parentOrganization?: string;
  /** regions the organization holds pools in even before a project of it is there */
  regions?: readonly string[];
}

export interface ProjectNode {
  name: string;
  /** absent or '' = the project sits directly under the service */
  parentOrganization?: string;
  regions: readonly string[];
}

export interface ServiceNode {
  name: string;
  regions?: readonly string[];
}

export interface Hierarchy {
  organizations: readonly OrganizationNode[];
  projects: readonly ProjectNode[];
  /** optional: services need no record, every service is the root of its own tree */
  services?: readonly ServiceNode[];
}

export interface TreeState {
  limitPools: readonly LimitPool[];
  limits: readonly Limit[];
}

export interface TreeDiff {
  createdPools: LimitPool[];
  updatedPools: LimitPool[];
  deletedPools: string[];
  createdLimits: Limit[];
  updatedLimits: Limit[];
  deletedLimits: string[];
}
