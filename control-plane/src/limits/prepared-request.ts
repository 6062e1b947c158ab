import {
  failedPrecondition,
  invalidArgument,
  notFound,
  type PlanAssignmentRequestResource,
  type PlanAssignmentResource,
} from '@outpost/shared';
import { usablePlan } from './assignment-spec.js';
import type { LimitsContext } from './context.js';
import { assignerOf, type LimitsSnapshot, type RequestType } from './core/index.js';
import { HierarchyReader } from './hierarchy-reader.js';
import { ownerOf } from './names.js';
import { requestTypeOf, specOf } from './records.js';
import { loadScope, snapshotOf, type Scope } from './scope.js';
import { ScopeReads } from './scope-reads.js';

/** A PlanAssignmentRequest read against the current tree: what it asks of whom, and who approves it. */
export interface PreparedRequest {
  assignee: string;
  service: string;
  approver: string;
  request: RequestType;
  /** the assignee's PlanAssignment the request works on, if it has one */
  current: PlanAssignmentResource | undefined;
  scope: Scope;
  snapshot: LimitsSnapshot;
}

/**
 * `reads`: the reads of the assignee's scope, when the caller made them ahead, to go out with its own (made
 * here otherwise: they go out together, one round trip on PostgreSQL, before the checks need the first of them).
 */
export function prepareRequest(
  ctx: LimitsContext,
  doc: PlanAssignmentRequestResource,
  reads?: ScopeReads,
): PreparedRequest {
  const assignee = ownerOf(doc.name);
  const scopeReads = reads?.entity === assignee ? reads : new ScopeReads(ctx, assignee);
  const reader = new HierarchyReader(ctx, scopeReads);
  if (!reader.entity(assignee)) throw failedPrecondition(`${assignee} does not exist`);
  const request = requestTypeOf(doc.request);
  if (typeof request === 'string') throw invalidArgument(request);

  let service: string;
  let current: PlanAssignmentResource | undefined;
  const plans: string[] = [];
  if ('assign' in request) {
    const plan = request.assign.plan;
    if (!plan) throw invalidArgument('request.assign.plan is required');
    const planRecord = reader.plan(plan);
    if (!planRecord) throw failedPrecondition(`plan "${plan}" does not exist`);
    service = planRecord.service;
    usablePlan(ctx, reader, plan, assignee, service);
    plans.push(plan);
  } else {
    const assignment = 'extend' in request ? request.extend.assignment : request.unassign.assignment;
    if (!assignment.startsWith(`${assignee}/planAssignments/`)) {
      throw invalidArgument(`assignment "${assignment}" is not a plan assignment of ${assignee}`);
    }
    current = ctx.h.planAssignments.find(assignment);
    if (!current) throw notFound(`plan assignment "${assignment}" does not exist`);
    service = current.service ?? '';
  }
  const given = doc.service ?? '';
  if (given !== '' && given !== service)
    throw invalidArgument(`service "${given}" does not match the request's ${service}`);

  const scope = loadScope(ctx, [assignee], { plans, reader, reads: scopeReads });
  // the assignee's assignment for the service (an entity holds one per service), as the scope read it
  current ??= scope.planAssignmentOf(assignee, service);
  const snapshot = snapshotOf(scope);
  return {
    assignee,
    service,
    approver: assignerOf(snapshot.index, assignee, service),
    request,
    current,
    scope,
    snapshot,
  };
}

export const currentSpec = (prepared: PreparedRequest) => (prepared.current ? specOf(prepared.current) : undefined);
