import { guardCapacity } from './capacity-guard.js';
import type { LimitsContext } from './context.js';
import { recomputeTree, type Assignment, type RecomputeResult } from './core/index.js';
import { assignmentKey, type AssignmentRef } from './assignment-row.js';
import { refreshPendingReasonsOf } from './pending-reasons.js';
import type { Scope } from './scope.js';
import { writeAssignmentDocs, writeTree } from './tree-writer.js';

/**
 * Recomputes a scope and writes what changed: pools, limits and the computed fields of assignments, then the
 * reasons of the scope's pending requests that no longer hold. Refuses (FAILED_PRECONDITION, nothing written,
 * the caller's transaction rolls back) when a pool would have to back more than its size.
 */
export function settle(ctx: LimitsContext, scope: Scope): RecomputeResult {
  const result = recomputeTree(
    scope.hierarchy,
    scope.assignments,
    scope.plans,
    scope.previous,
    scope.external,
    scope.index(),
  );
  guardCapacity(scope.previous, result.diff);
  writeTree(ctx, result.diff, scope.held);
  const changed: [AssignmentRef, Assignment][] = [];
  for (const assignment of result.changedAssignments) {
    const ref = scope.refs.get(assignmentKey(assignment.assignee, assignment.service));
    if (ref) changed.push([ref, assignment]);
  }
  writeAssignmentDocs(ctx, changed, scope.held.planAssignments);
  for (const orphan of result.orphanedAssignments) {
    const ref = scope.refs.get(assignmentKey(orphan.assignee, orphan.service));
    if (!ref) continue;
    ctx.h.planAssignments.remove(ref.planAssignment);
    if (ref.acceptedPlan) ctx.h.acceptedPlans.remove(ref.acceptedPlan);
  }
  refreshPendingReasonsOf(ctx, entitiesOf(scope));
  return result;
}

function entitiesOf(scope: Scope): Set<string> {
  const { organizations, projects, services = [] } = scope.hierarchy;
  return new Set([...organizations, ...projects, ...services].map((node) => node.name));
}

/** The scope with one entity's assignment for a service replaced (or removed when `next` is undefined). */
export function withAssignment(
  scope: Scope,
  assignee: string,
  next: Assignment | undefined,
  service: string,
  ref: AssignmentRef | undefined,
): Scope {
  const key = assignmentKey(assignee, service);
  const assignments = scope.assignments.filter((a) => assignmentKey(a.assignee, a.service) !== key);
  const refs = new Map(scope.refs);
  if (next) {
    assignments.push({ ...next, assignee });
    if (ref) refs.set(key, ref);
  } else refs.delete(key);
  return { ...scope, assignments, refs };
}
