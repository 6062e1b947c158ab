import { failedPrecondition, type ApiError } from '@outpost/shared';
import { checkCapacity, type CapacityCheck, type CapacityViolation } from './check-capacity.js';
import { decideApproval, type ApprovalDecision, type ResourceUsage } from './decide-approval.js';
import type { HierarchyIndex } from './hierarchy.js';
import { applyRequest } from './apply-request.js';
import { materializeAssignment } from './materialize-assignment.js';
import type { Assignment, AssignmentSpec, RequestType } from './model.js';
import { checkPlanFitsAssignee } from './plan-fits-assignee.js';
import { requirePlan, type PlansByName } from './plans.js';
import { entityKind } from './resource-names.js';
import type { TreeLookup } from './tree-lookup.js';

/** One consistent snapshot the request rules read (taken inside the caller's transaction). */
export interface LimitsSnapshot {
  index: HierarchyIndex;
  tree: TreeLookup;
  plans: PlansByName;
}

export interface RequestInput {
  assignee: string;
  service: string;
  /** the assignee's current assignment for the service */
  current: AssignmentSpec | undefined;
  request: RequestType;
}

export interface RequestEffect {
  /** the assignment after the request, computed; undefined when the request removes it */
  next: Assignment | undefined;
  /** whether the parent pools can back it (always ok for lowering requests and for services) */
  capacity: CapacityCheck;
}

/** What accepting the request would make of the assignment, and whether the parent pools can back it. */
export function requestEffect(snapshot: LimitsSnapshot, input: RequestInput): RequestEffect {
  const { index, tree, plans } = snapshot;
  if ('assign' in input.request) {
    checkPlanFitsAssignee(requirePlan(plans, input.request.assign.plan), input.assignee, input.service);
  }
  const spec = applyRequest(input.current, input.request, input.service);
  const next = spec && materializeAssignment(spec, plans, index.regionsOf(input.assignee));
  const capacity = checkCapacity(index, tree, input.assignee, next?.allowances ?? []);
  return { next, capacity };
}

/** A new request: its effect and whether the system approves it at once (then the caller applies `next`). */
export function submitRequest(
  snapshot: LimitsSnapshot,
  input: RequestInput & { requesterIsSystem: boolean },
): RequestEffect & { decision: ApprovalDecision } {
  const effect = requestEffect(snapshot, input);
  const before = input.current
    ? materializeAssignment(input.current, snapshot.plans, snapshot.index.regionsOf(input.assignee)).allowances
    : [];
  const decision = decideApproval({
    before,
    after: effect.next?.allowances,
    usageByResourceRegion: usageOf(snapshot.tree, input.assignee, input.service),
    requesterIsSystem: input.requesterIsSystem,
  });
  return { ...effect, decision };
}

/** What is in use of the assignee's limits: usage of a project's limits, reserved of an organization's pools. */
export function usageOf(tree: TreeLookup, assignee: string, service: string): ResourceUsage[] {
  if (entityKind(assignee) === 'project') {
    return tree
      .limitsOf(assignee)
      .filter((limit) => limit.service === service)
      .map((limit) => ({ resource: limit.resource, region: limit.region, usage: limit.usage }));
  }
  return tree
    .poolsOf(assignee)
    .filter((pool) => pool.service === service)
    .map((pool) => ({ resource: pool.resource, region: pool.region, usage: pool.reserved }));
}

/** The refusal of an assignment the parent pool cannot back. */
export function capacityError(violation: CapacityViolation): ApiError {
  return failedPrecondition(
    `${violation.resource} in region ${violation.region}: ${violation.requested} requested, ` +
      `${violation.parentPool} can give ${violation.available}`,
  );
}
