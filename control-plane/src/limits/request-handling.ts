import { removeAssignment, saveAssignment } from './assignment-store.js';
import type { LimitsContext } from './context.js';
import type { Assignment } from './core/index.js';
import type { PreparedRequest } from './prepared-request.js';
import { settle, withAssignment } from './settle.js';

/** Makes an approved request's assignment real (or removes it) and settles the tree; returns the AcceptedPlan. */
export function carryOut(
  ctx: LimitsContext,
  prepared: PreparedRequest,
  next: Assignment | undefined,
): string | undefined {
  const { assignee, service, approver, current } = prepared;
  if (!next) {
    if (current) removeAssignment(ctx, current);
    settle(ctx, withAssignment(prepared.scope, assignee, undefined, service, undefined));
    return undefined;
  }
  const { planAssignment, acceptedPlan } = saveAssignment(ctx, {
    assignee,
    assigner: approver,
    next,
    current,
    held: prepared.scope.held.planAssignments,
  });
  const ref = { planAssignment, acceptedPlan };
  settle(ctx, withAssignment(prepared.scope, assignee, next, service, ref));
  return ref.acceptedPlan;
}
