import { alreadyExists, type AcceptedPlanResource, type PlanAssignmentResource } from '@outpost/shared';
import { childrenOf, type LimitsContext } from './context.js';
import type { Assignment } from './core/index.js';
import { acceptedPlanName, assigneeField, assignmentIdOf, lastSegment, ownerOf, planAssignmentName } from './names.js';
import { assignmentFields } from './records.js';
import type { HeldRows } from './held-rows.js';
import type { AssignmentRef } from './assignment-row.js';

/** The assignee's PlanAssignment for a service, if it has one. */
export function findAssignment(
  ctx: LimitsContext,
  assignee: string,
  service: string,
): PlanAssignmentResource | undefined {
  return childrenOf(ctx.h.planAssignments, assignee).find((doc) => (doc.service ?? '') === service);
}

export interface SaveAssignment {
  assignee: string;
  assigner: string;
  next: Assignment;
  /** the assignee's current PlanAssignment for the service */
  current?: PlanAssignmentResource | undefined;
  /** the id of new documents (default: assignmentIdOf) */
  id?: string;
  /** PlanAssignment rows the caller read (see HeldRows) */
  held?: HeldRows<PlanAssignmentResource>;
}

/**
 * Writes an assignment as the system: the assigner's AcceptedPlan and the assignee's PlanAssignment synced
 * with it. An AcceptedPlan held by another assigner (the entity moved) moves to `assigner`. Returns the
 * names and the AcceptedPlan as stored.
 */
export function saveAssignment(
  ctx: LimitsContext,
  save: SaveAssignment,
): AssignmentRef & { acceptedPlanDoc: AcceptedPlanResource } {
  const { acceptedPlans, planAssignments } = ctx.h;
  const fields = assignmentFields(save.next);
  const id = save.current
    ? lastSegment(save.current.name)
    : (save.id ?? assignmentIdOf(save.assignee, save.next.service));
  const planAssignment = save.current ? save.current.name : planAssignmentName(save.assignee, id);
  const previousAccepted = save.current?.source ?? '';
  const held = previousAccepted ? ctx.storedRow('acceptedPlans', previousAccepted) : undefined;
  let acceptedPlan = previousAccepted;
  let acceptedPlanDoc: AcceptedPlanResource;
  if (held && ownerOf(previousAccepted) === save.assigner) {
    acceptedPlanDoc = acceptedPlans.patchRow(held, (doc) => ({ ...doc, ...fields }));
  } else {
    acceptedPlan = acceptedPlanName(save.assigner, previousAccepted ? lastSegment(previousAccepted) : id);
    if (acceptedPlan !== previousAccepted && acceptedPlans.exists(acceptedPlan)) {
      throw alreadyExists(`accepted plan "${acceptedPlan}" already exists`);
    }
    if (held) acceptedPlans.remove(previousAccepted);
    acceptedPlanDoc = acceptedPlans.put({
      ...(held?.doc ?? {}),
      name: acceptedPlan,
      ...fields,
      assignee: assigneeField(save.assignee),
    });
  }
  if (save.current) {
    (save.held ?? ctx.heldRows('planAssignments')).merge([[planAssignment, { ...fields, source: acceptedPlan }]]);
  } else {
    if (planAssignments.exists(planAssignment))
      throw alreadyExists(`plan assignment "${planAssignment}" already exists`);
    planAssignments.put({ name: planAssignment, ...fields, source: acceptedPlan });
  }
  return { planAssignment, acceptedPlan, acceptedPlanDoc };
}

/** Removes both documents of an assignment. */
export function removeAssignment(ctx: LimitsContext, planAssignment: PlanAssignmentResource): void {
  ctx.h.planAssignments.remove(planAssignment.name);
  const source = planAssignment.source;
  if (source) ctx.h.acceptedPlans.remove(source);
}
